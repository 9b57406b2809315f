import type { InputObjectRef } from '@pothos/core';
import type PrismaTypes from '../generated/pothos-types.js';
import { execute, type Operation } from '../core/operation.js';
import { findByIdSelecting } from '../db/tenant.js';
import { AppError, ERROR_CODES, type ErrorCode } from '../lib/errors.js';
import { builder } from './builder.js';
import type { GraphQLContext } from './context.js';
import { graphqlPath, toApiInput } from './input.js';

/**
 * Mutations follow the conventions of the public GraphQL APIs held up as models (Shopify
 * Admin, GitHub): one `input` argument; a payload with the changed object and `userErrors`
 * for the caller's mistakes, each with the field, a message and the same code REST answers;
 * exceptions only for the unexpected (and for authentication).
 */
export interface UserError {
  field: string | null;
  message: string;
  code: ErrorCode;
}

export const ErrorCodeEnum = builder.enumType('ErrorCode', {
  description: 'Machine-readable error codes; REST error bodies carry the same `code`',
  values: ERROR_CODES,
});

export const UserErrorRef = builder.objectRef<UserError>('UserError').implement({
  description: "A mistake in the caller's input: which field (null when no single one), what is wrong, and its code",
  fields: (t) => ({
    field: t.exposeString('field', { nullable: true, description: 'Path of the input field, e.g. `customFields[1].key`' }),
    message: t.exposeString('message', { description: 'What is wrong, in English, for people (match on `code`, not on this)' }),
    code: t.field({ type: ErrorCodeEnum, description: 'Machine-readable reason, the `code` REST answers for the same mistake', resolve: (e) => e.code }),
  }),
});

/** The `userErrors` field of every payload. */
export const USER_ERRORS_DESCRIPTION = "The caller's mistakes that refused the mutation, nothing written; empty when it succeeded";

/** The `input` argument of every mutation. */
export const INPUT_DESCRIPTION = 'What to do; a field given as null counts as not given';

/** What a mutation resolves to before its payload's fields read the object back. */
export interface Payload {
  /** Id of the object written; null when the mutation was refused. */
  id: string | null;
  /** The operation's /v1 answer (the first answer, on an idempotent replay). */
  body: unknown;
  userErrors: UserError[];
}

/**
 * The error's issues as userErrors; `fieldNames` renames the /v1 names of fields the GraphQL
 * input calls otherwise (`customer_id` is the input's `id`).
 */
export function userErrorsOf(err: AppError, fieldNames: Record<string, string> = {}): UserError[] {
  if (!err.issues.length) return [{ field: null, message: err.message, code: err.code }];
  return err.issues.map((i) => {
    const [head, ...rest] = i.path;
    const path = typeof head === 'string' && fieldNames[head] ? [fieldNames[head]!, ...rest] : i.path;
    return { field: path.length ? graphqlPath(path) : null, message: i.message, code: err.code };
  });
}

/** Runs the operation; the caller's mistakes become userErrors, anything else stays an exception. */
export async function payloadOf<In, Out>(ctx: GraphQLContext, op: Operation<In, Out>, raw: unknown, fieldNames?: Record<string, string>): Promise<Payload> {
  try {
    const out = await execute(ctx.core, op, raw);
    return { id: out.id, body: out.body, userErrors: [] };
  } catch (err) {
    if (err instanceof AppError && err.isCallerError) return { id: null, body: null, userErrors: userErrorsOf(err, fieldNames) };
    throw err;
  }
}

type Model = keyof PrismaTypes & string;
type SchemaTypes = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

/**
 * `<Name>Payload { <field>: <Model>, userErrors }`; the object is read back by id with the
 * selection of the query, through the tenant-bound client. More fields can be added to the
 * returned type with `builder.objectFields`.
 */
export function payloadType(name: string, field: string, model: Model, description: string) {
  return builder.objectRef<Payload>(name).implement({
    description: `A mutation's answer: \`${field}\`, or the \`userErrors\` that refused it`,
    fields: (t) => ({
      [field]: t.prismaField({
        type: model,
        nullable: true,
        description: `${description}; null when the mutation was refused (see userErrors)`,
        resolve: (query, payload, _args, ctx) => (payload.id ? findByIdSelecting(ctx.core, model, payload.id, query) : null) as never,
      }),
      userErrors: t.field({ type: [UserErrorRef], description: USER_ERRORS_DESCRIPTION, resolve: (p) => p.userErrors }),
    }),
  });
}

/** Every mutation made by `operationMutation`, with its operation: what a test holds the two surfaces' inputs equal by. */
export const OPERATION_MUTATIONS: { name: string; op: Operation<unknown, unknown>; input: string; fieldNames: Record<string, string> }[] = [];

/** A mutation over an operation: `name(input: <Input>!): <Payload>`. */
export function operationMutation<In, Out, Shape extends object>(
  name: string,
  options: {
    op: Operation<In, Out>;
    input: InputObjectRef<SchemaTypes, Shape>;
    payload: ReturnType<typeof payloadType>;
    description: string;
    /** The operation's raw input from the GraphQL input; default: its fields in /v1 names. */
    toInput?: (input: Shape) => unknown;
    /** /v1 field name -> input field name, where `toInput` renames (for userErrors' `field`). */
    fieldNames?: Record<string, string>;
  },
) {
  const toInput = options.toInput ?? toApiInput;
  OPERATION_MUTATIONS.push({ name, op: options.op as Operation<unknown, unknown>, input: options.input.name, fieldNames: options.fieldNames ?? {} });
  builder.mutationField(name, (t) =>
    t.field({
      type: options.payload,
      description: options.description,
      args: { input: t.arg({ type: options.input, required: true, description: INPUT_DESCRIPTION }) },
      resolve: (_root, args, ctx) => payloadOf(ctx, options.op, toInput((args as { input: Shape }).input), options.fieldNames),
    }),
  );
}
