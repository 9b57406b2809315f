import { defineOperation } from '../../core/operation.js';
import { mapPage } from '../../lib/pagination.js';
import { affiliateIdSchema, createAffiliateInviteSchema, listAffiliatesSchema, listCommissionsSchema, noInputSchema, updateAffiliateProgramSchema } from './affiliates.schemas.js';
import {
  affiliateEntity,
  affiliateInviteEntity,
  affiliatePayoutEntity,
  affiliateProgramEntity,
  commissionEntity,
  serializeAffiliate,
  serializeCommission,
  serializeInvite,
  serializePayout,
  serializeProgram,
} from './affiliates.serializer.js';
import { pageOf } from '../../lib/response-schemas.js';
import { createInvite, listAffiliates, listCommissions, listInvites, recordPayout, retrieveAffiliate, retrieveProgram, updateProgram } from './affiliates.service.js';

/** The affiliate operations of the official client (`affiliates*`) and this service's program and payout extensions, for REST and GraphQL alike. */

// `steps`: the invitation is written in one transaction of its own; its link is made after.
export const createAffiliateInviteOp = defineOperation({ name: 'affiliates.invites.create', input: createAffiliateInviteSchema, write: 'steps', output: affiliateInviteEntity, run: createInvite, render: (_ctx, i) => serializeInvite(i) });
export const listAffiliateInvitesOp = defineOperation({ name: 'affiliates.invites.list', input: listAffiliatesSchema, write: false, output: pageOf(affiliateInviteEntity), run: listInvites, render: (_ctx, page) => mapPage(page, serializeInvite), idOf: () => null });
export const listAffiliatesOp = defineOperation({ name: 'affiliates.list', input: listAffiliatesSchema, write: false, output: pageOf(affiliateEntity), run: listAffiliates, render: (ctx, page) => mapPage(page, (a) => serializeAffiliate(a, ctx.baseUrl)), idOf: () => null });
export const retrieveAffiliateOp = defineOperation({ name: 'affiliates.retrieve', input: affiliateIdSchema, write: false, output: affiliateEntity, run: retrieveAffiliate, render: (ctx, a) => serializeAffiliate(a, ctx.baseUrl) });
export const listCommissionsOp = defineOperation({
  name: 'affiliates.commissions.list',
  input: listCommissionsSchema,
  write: false,
  output: pageOf(commissionEntity),
  run: listCommissions,
  render: (ctx, { program, ...page }) => mapPage(page, (c) => serializeCommission(c, program, ctx.clock.now())),
  idOf: () => null,
});
/** Extensions: the program's settings, and recording a payout of approved commissions. */
export const retrieveAffiliateProgramOp = defineOperation({ name: 'affiliates.program.retrieve', input: noInputSchema, write: false, output: affiliateProgramEntity, run: retrieveProgram, render: (_ctx, p) => serializeProgram(p) });
export const updateAffiliateProgramOp = defineOperation({ name: 'affiliates.program.update', input: updateAffiliateProgramSchema, write: true, output: affiliateProgramEntity, run: updateProgram, render: (_ctx, p) => serializeProgram(p) });
export const recordAffiliatePayoutOp = defineOperation({ name: 'affiliates.payouts.create', input: affiliateIdSchema, write: true, output: affiliatePayoutEntity, run: recordPayout, render: (_ctx, p) => serializePayout(p), idOf: (p) => p.affiliateId });
