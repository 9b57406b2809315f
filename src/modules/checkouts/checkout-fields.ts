import type { ProductCustomField } from '../../generated/prisma/client.js';
import type { CustomFieldInput } from '../products/products.schemas.js';
import type { FieldIssue } from '../../lib/errors.js';

/** A field the buyer fills in on the checkout page: the product's own, then the checkout's extra ones. */
export interface CheckoutField {
  type: 'text' | 'checkbox';
  key: string;
  label: string;
  optional: boolean;
  maxLength: number | null;
  minLength: number | null;
  /** Checkbox text; may contain a Markdown link. */
  checkboxLabel: string | null;
}

export type FieldValues = Record<string, string | boolean>;

export function productFieldsOf(rows: ProductCustomField[]): CheckoutField[] {
  return rows.map((f) => ({
    type: f.type as CheckoutField['type'],
    key: f.key,
    label: f.label,
    optional: f.optional,
    maxLength: f.textMaxLength,
    minLength: f.textMinLength,
    checkboxLabel: f.checkboxLabel,
  }));
}

/** The request's `custom_fields` as stored on the checkout (`extraFields`). */
export function extraFieldsOf(input: CustomFieldInput[]): CheckoutField[] {
  return input.map((f) => ({
    type: f.type,
    key: f.key,
    label: f.label,
    optional: f.optional ?? false,
    maxLength: f.type === 'text' ? (f.text?.max_length ?? null) : null,
    minLength: f.type === 'text' ? (f.text?.min_length ?? null) : null,
    checkboxLabel: f.type === 'checkbox' ? (f.checkbox?.label ?? null) : null,
  }));
}

/** Product fields first; a checkout field with the same key replaces the product's. */
export function mergeFields(product: CheckoutField[], extra: CheckoutField[]): CheckoutField[] {
  const extraKeys = new Set(extra.map((f) => f.key));
  return [...product.filter((f) => !extraKeys.has(f.key)), ...extra];
}

const DEFAULT_TEXT_MAX = 500;

/**
 * Checks the buyer's values against the fields. Text is trimmed; a required checkbox must be
 * ticked (that is what a "I accept the terms" box is for). Unknown keys are dropped.
 */
export function validateFieldValues(fields: CheckoutField[], raw: FieldValues): { values: FieldValues; issues: FieldIssue[] } {
  const values: FieldValues = {};
  const issues: FieldIssue[] = [];
  for (const f of fields) {
    const path = ['custom_fields', f.key];
    if (f.type === 'checkbox') {
      const checked = raw[f.key] === true || raw[f.key] === 'on' || raw[f.key] === 'true';
      if (!checked && !f.optional) issues.push({ path, message: `${f.label}: must be checked` });
      values[f.key] = checked;
      continue;
    }
    const text = typeof raw[f.key] === 'string' ? (raw[f.key] as string).trim() : '';
    if (!text) {
      if (!f.optional) issues.push({ path, message: `${f.label}: is required` });
      continue;
    }
    const max = f.maxLength ?? DEFAULT_TEXT_MAX;
    if (text.length > max) issues.push({ path, message: `${f.label}: at most ${max} characters` });
    if (f.minLength !== null && text.length < f.minLength) issues.push({ path, message: `${f.label}: at least ${f.minLength} characters` });
    values[f.key] = text;
  }
  return { values, issues };
}

/** The API's custom field objects, with the buyer's values once there are any. */
export function serializeFields(fields: CheckoutField[], values: FieldValues | null) {
  return fields.map((f) => ({
    type: f.type,
    key: f.key,
    label: f.label,
    optional: f.optional,
    ...(f.type === 'text'
      ? { text: { max_length: f.maxLength, minimum_length: f.minLength, ...(values && typeof values[f.key] === 'string' ? { value: values[f.key] } : {}) } }
      : { checkbox: { label: f.checkboxLabel, ...(values && typeof values[f.key] === 'boolean' ? { value: values[f.key] } : {}) } }),
  }));
}
