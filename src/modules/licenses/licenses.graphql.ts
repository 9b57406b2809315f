import { apiEnum, builder, MODE_DESCRIPTION, ModeEnum } from '../../graphql/builder.js';
import { operationMutation, payloadType } from '../../graphql/mutation.js';
import { activateLicenseOp, deactivateLicenseOp, validateLicenseOp } from './licenses.operations.js';
import { licenseWireStatus } from './licenses.rules.js';
import { LICENSE_INSTANCE_STATUSES, LICENSE_STATUSES } from './licenses.schemas.js';

const LicenseStatusEnum = apiEnum('LicenseStatus', LICENSE_STATUSES, '`expired` once expiresAt has passed; `disabled` wins over it', {
  inactive: 'Issued, no device active on it (never activated, or all deactivated)',
  active: 'At least one device active on it',
  expired: 'Past expiresAt: can no longer be activated',
  disabled: 'Revoked by the seller, for good',
});
const LicenseInstanceStatusEnum = apiEnum('LicenseInstanceStatus', LICENSE_INSTANCE_STATUSES, 'Whether a device still holds an activation slot', {
  deactivated: 'Freed its slot (deactivateLicense)',
});

export const LicenseNode = builder.prismaNode('License', {
  id: { field: 'id', description: 'The /v1 id (lic_…)' },
  nullable: true,
  description: 'A license key a purchase issued (licenseKey feature): the buyer’s software activates devices on it',
  fields: (t) => ({
    mode: t.expose('mode', { type: ModeEnum, description: MODE_DESCRIPTION }),
    key: t.exposeString('key', { description: 'The secret the buyer enters in your software' }),
    status: t.field({
      type: LicenseStatusEnum,
      description: 'As the buyer\'s software sees it, at the time of the request',
      select: { status: true, expiresAt: true },
      resolve: (l, _a, ctx) => licenseWireStatus(l, ctx.core.clock.now()),
    }),
    activation: t.exposeInt('activationCount', { description: 'Active instances' }),
    activationLimit: t.exposeInt('activationLimit', { nullable: true, description: 'Null = unlimited' }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime', nullable: true, description: 'From this instant the key is expired; null: never' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the key was issued' }),
    product: t.relation('product', { description: 'The product whose purchase issued it' }),
    customer: t.relation('customer', { description: 'The buyer who holds it' }),
    instances: t.relatedConnection('instances', {
      cursor: 'id',
      totalCount: true,
      description: 'Activations, newest first, deactivated ones included',
      query: { orderBy: { id: 'desc' } },
    }),
  }),
});

builder.prismaNode('LicenseInstance', {
  id: { field: 'id', description: 'The /v1 id (lici_…)' },
  nullable: true,
  description: 'One device activated on a license key',
  fields: (t) => ({
    mode: t.expose('mode', { type: ModeEnum, description: MODE_DESCRIPTION }),
    name: t.exposeString('name', { description: 'The device’s name given at activation (instanceName)' }),
    status: t.field({ type: LicenseInstanceStatusEnum, description: 'Active, or deactivated (its slot freed)', select: { status: true }, resolve: (i) => i.status as (typeof LICENSE_INSTANCE_STATUSES)[number] }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the device was activated' }),
    deactivatedAt: t.expose('deactivatedAt', { type: 'DateTime', nullable: true, description: 'When it was deactivated; null while active' }),
    license: t.relation('license', { description: 'The key it is activated on' }),
  }),
});

builder.prismaObjectFields('Customer', (t) => ({
  licenses: t.relatedConnection('licenses', {
    cursor: 'id',
    totalCount: true,
    description: "The customer's license keys, newest first",
    query: { orderBy: { id: 'desc' } },
  }),
}));

const ActivateLicenseInput = builder.inputType('ActivateLicenseInput', {
  description: 'A device to activate on a key',
  fields: (t) => ({
    key: t.string({ required: true, description: 'The license key' }),
    instanceName: t.string({ required: true, description: 'A name for the device, e.g. its host name' }),
  }),
});

const licenseInstanceInput = (name: string) =>
  builder.inputType(name, {
    description: 'A key and one of its devices',
    fields: (t) => ({
      key: t.string({ required: true, description: 'The license key' }),
      instanceId: t.id({ required: true, description: 'The instance (lici_…) that activateLicense answered' }),
    }),
  });

// The mutations answer the instance acted on; its `license` gives the key's status and count.
operationMutation('activateLicense', {
  op: activateLicenseOp,
  input: ActivateLicenseInput,
  payload: payloadType('ActivateLicensePayload', 'instance', 'LicenseInstance', 'The instance registered'),
  description: 'Registers a device (instance) on a license key; refused once the activation limit is reached',
});

// A read, kept a mutation field as before: software calls it like activate and deactivate.
operationMutation('validateLicense', {
  op: validateLicenseOp,
  input: licenseInstanceInput('ValidateLicenseInput'),
  payload: payloadType('ValidateLicensePayload', 'instance', 'LicenseInstance', 'The instance checked'),
  description: 'Checks a key and one of its instances; an expired or disabled key answers with that status',
});

operationMutation('deactivateLicense', {
  op: deactivateLicenseOp,
  input: licenseInstanceInput('DeactivateLicenseInput'),
  payload: payloadType('DeactivateLicensePayload', 'instance', 'LicenseInstance', 'The instance deactivated'),
  description: "Frees an instance's activation slot",
});
