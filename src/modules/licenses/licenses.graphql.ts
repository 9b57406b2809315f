import { apiEnum, builder, ModeEnum } from '../../graphql/builder.js';
import { operationMutation, payloadType } from '../../graphql/mutation.js';
import { activateLicenseOp, deactivateLicenseOp, validateLicenseOp } from './licenses.operations.js';
import { licenseWireStatus } from './licenses.rules.js';
import { LICENSE_INSTANCE_STATUSES, LICENSE_STATUSES } from './licenses.schemas.js';

const LicenseStatusEnum = apiEnum('LicenseStatus', LICENSE_STATUSES, '`expired` once expiresAt has passed; `disabled` wins over it');
const LicenseInstanceStatusEnum = apiEnum('LicenseInstanceStatus', LICENSE_INSTANCE_STATUSES);

export const LicenseNode = builder.prismaNode('License', {
  id: { field: 'id' },
  nullable: true,
  fields: (t) => ({
    mode: t.expose('mode', { type: ModeEnum }),
    key: t.exposeString('key'),
    status: t.field({
      type: LicenseStatusEnum,
      description: 'As the buyer\'s software sees it, at the time of the request',
      select: { status: true, expiresAt: true },
      resolve: (l, _a, ctx) => licenseWireStatus(l, ctx.core.clock.now()),
    }),
    activation: t.exposeInt('activationCount', { description: 'Active instances' }),
    activationLimit: t.exposeInt('activationLimit', { nullable: true, description: 'Null = unlimited' }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    product: t.relation('product'),
    customer: t.relation('customer'),
    instances: t.relatedConnection('instances', {
      cursor: 'id',
      totalCount: true,
      description: 'Activations, newest first, deactivated ones included',
      query: { orderBy: { id: 'desc' } },
    }),
  }),
});

builder.prismaNode('LicenseInstance', {
  id: { field: 'id' },
  nullable: true,
  fields: (t) => ({
    mode: t.expose('mode', { type: ModeEnum }),
    name: t.exposeString('name'),
    status: t.field({ type: LicenseInstanceStatusEnum, select: { status: true }, resolve: (i) => i.status as (typeof LICENSE_INSTANCE_STATUSES)[number] }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    deactivatedAt: t.expose('deactivatedAt', { type: 'DateTime', nullable: true }),
    license: t.relation('license'),
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
  fields: (t) => ({
    key: t.string({ required: true }),
    instanceName: t.string({ required: true, description: 'A name for the device, e.g. its host name' }),
  }),
});

const licenseInstanceInput = (name: string) =>
  builder.inputType(name, {
    fields: (t) => ({
      key: t.string({ required: true }),
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
