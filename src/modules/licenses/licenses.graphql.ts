import { builder, ModeEnum } from '../../graphql/builder.js';
import { apiIdOf } from '../../graphql/input.js';
import { scope } from '../../context.js';
import { licenseWireStatus } from './licenses.serializer.js';
import { activateLicense, deactivateLicense, validateLicense } from './licenses.service.js';

export const LicenseNode = builder.prismaNode('License', {
  id: { field: 'id' },
  findUnique: (id, ctx) => ({ id, ...scope(ctx.core) }),
  fields: (t) => ({
    apiId: t.exposeString('id', { description: 'The id used by the /v1 REST API' }),
    mode: t.expose('mode', { type: ModeEnum }),
    key: t.exposeString('key'),
    status: t.string({
      description: 'inactive | active | expired | disabled; `expired` once expiresAt has passed',
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
  // Instances carry no store id; they are reachable only through a license of the caller's store.
  findUnique: (id, ctx) => ({ id, mode: ctx.core.mode, license: { storeId: ctx.core.storeId } }),
  fields: (t) => ({
    apiId: t.exposeString('id', { description: 'The id used by the /v1 REST API' }),
    mode: t.expose('mode', { type: ModeEnum }),
    name: t.exposeString('name'),
    status: t.exposeString('status', { description: 'active | deactivated' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    deactivatedAt: t.expose('deactivatedAt', { type: 'DateTime', nullable: true }),
    license: t.relation('license'),
  }),
});

builder.prismaObjectField('Customer', 'licenses', (t) =>
  t.relatedConnection('licenses', {
    cursor: 'id',
    totalCount: true,
    description: "The customer's license keys, newest first",
    query: { orderBy: { id: 'desc' } },
  }),
);

// The mutations answer the instance acted on; its `license` gives the key's status and count.
builder.mutationFields((t) => ({
  activateLicense: t.prismaField({
    type: 'LicenseInstance',
    description: 'Registers a device (instance) on a license key; refused once the activation limit is reached',
    args: { key: t.arg.string({ required: true }), instanceName: t.arg.string({ required: true }) },
    resolve: async (query, _p, args, ctx) => {
      const { instance } = await activateLicense(ctx.core, { key: args.key, instance_name: args.instanceName });
      return ctx.core.db.licenseInstance.findUniqueOrThrow({ ...query, where: { id: instance.id } });
    },
  }),
  validateLicense: t.prismaField({
    type: 'LicenseInstance',
    description: 'Checks a key and one of its instances; an expired or disabled key answers with that status',
    args: { key: t.arg.string({ required: true }), instanceId: t.arg.id({ required: true }) },
    resolve: async (query, _p, args, ctx) => {
      const { instance } = await validateLicense(ctx.core, { key: args.key, instance_id: apiIdOf(String(args.instanceId), 'LicenseInstance') });
      return ctx.core.db.licenseInstance.findUniqueOrThrow({ ...query, where: { id: instance.id } });
    },
  }),
  deactivateLicense: t.prismaField({
    type: 'LicenseInstance',
    description: "Frees an instance's activation slot",
    args: { key: t.arg.string({ required: true }), instanceId: t.arg.id({ required: true }) },
    resolve: async (query, _p, args, ctx) => {
      const { instance } = await deactivateLicense(ctx.core, { key: args.key, instance_id: apiIdOf(String(args.instanceId), 'LicenseInstance') });
      return ctx.core.db.licenseInstance.findUniqueOrThrow({ ...query, where: { id: instance.id } });
    },
  }),
}));
