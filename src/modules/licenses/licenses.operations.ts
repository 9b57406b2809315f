import { defineOperation } from '../../core/operation.js';
import type { RequestContext } from '../../context.js';
import { mapPage } from '../../lib/pagination.js';
import { pageOf } from '../../lib/response-schemas.js';
import { licenseEntity, licenseInstanceEntity, serializeLicense, serializeLicenseInstance } from './licenses.serializer.js';
import {
  activateLicenseSchema,
  deactivateLicenseSchema,
  listCustomerLicensesSchema,
  listLicenseInstancesSchema,
  validateLicenseSchema,
} from './licenses.schemas.js';
import {
  activateLicense,
  deactivateLicense,
  listCustomerLicenses,
  listLicenseInstances,
  validateLicense,
  type LicenseWithInstance,
} from './licenses.service.js';

/**
 * The license operations, as REST (licenses.routes.ts) and GraphQL (licenses.graphql.ts) run
 * them. Activate, validate and deactivate answer the license with the instance acted on; the
 * GraphQL payloads read that instance back.
 */
const render = (ctx: RequestContext, r: LicenseWithInstance) => serializeLicense(r.license, ctx.clock.now(), r.instance);
const idOf = (r: LicenseWithInstance) => r.instance.id;

export const activateLicenseOp = defineOperation({ name: 'licenses.activate', summary: 'Activate a license key', description: 'Registers a device (`instance_name`) on the key and answers the license with the new instance; a key at its activation limit is refused (400 `activation_limit_reached`).', input: activateLicenseSchema, write: true, output: licenseEntity, run: activateLicense, render, idOf });

/** A read: it changes nothing, so it runs outside a transaction and is never recorded for idempotent replays. */
export const validateLicenseOp = defineOperation({ name: 'licenses.validate', summary: 'Validate a license key', description: 'Whether the key may run on the instance: an expired or disabled key still answers 200 with that `status`, an unknown one 404. Changes nothing.', input: validateLicenseSchema, write: false, output: licenseEntity, run: validateLicense, render, idOf });

export const deactivateLicenseOp = defineOperation({ name: 'licenses.deactivate', summary: 'Deactivate a license instance', description: "Frees the instance's activation slot, also on an expired or disabled key; deactivating an instance twice is refused (400).", input: deactivateLicenseSchema, write: true, output: licenseEntity, run: deactivateLicense, render, idOf });

export const listLicenseInstancesOp = defineOperation({
  name: 'licenses.instances',
  summary: "List a license key's instances",
  description: 'The activations of the key; an instance id from here can be deactivated. Paged by `page_number` and `page_size` (at most 100).',
  input: listLicenseInstancesSchema,
  write: false,
  output: pageOf(licenseInstanceEntity),
  run: listLicenseInstances,
  render: (_ctx, page) => mapPage(page, serializeLicenseInstance),
});

export const listCustomerLicensesOp = defineOperation({
  name: 'licenses.customer_licenses',
  summary: "List a customer's license keys",
  description: 'Paged by `page_number` and `page_size` (at most 100).',
  input: listCustomerLicensesSchema,
  write: false,
  output: pageOf(licenseEntity),
  run: listCustomerLicenses,
  render: (ctx, page) => {
    const now = ctx.clock.now();
    return mapPage(page, (l) => serializeLicense(l, now, null));
  },
});
