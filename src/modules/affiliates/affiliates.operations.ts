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
export const createAffiliateInviteOp = defineOperation({ name: 'affiliates.invites.create', summary: 'Invite an affiliate', description: "Invites someone by email to your affiliate program (your store's program when `program_id` is omitted); they become an active affiliate once they accept.", input: createAffiliateInviteSchema, write: 'steps', output: affiliateInviteEntity, run: createInvite, render: (_ctx, i) => serializeInvite(i) });
export const listAffiliateInvitesOp = defineOperation({ name: 'affiliates.invites.list', summary: 'List affiliate invitations', description: 'The invitations you have sent, with their status (`pending` until accepted, `accepted` once the affiliate has joined). Paged by `page_number` and `page_size` (at most 100).', input: listAffiliatesSchema, write: false, output: pageOf(affiliateInviteEntity), run: listInvites, render: (_ctx, page) => mapPage(page, serializeInvite), idOf: () => null });
export const listAffiliatesOp = defineOperation({ name: 'affiliates.list', summary: 'List affiliates', description: 'Your affiliates with their referral link, click and conversion counts and lifetime commission; invitees who have not joined yet are not included. Paged by `page_number` and `page_size` (at most 100).', input: listAffiliatesSchema, write: false, output: pageOf(affiliateEntity), run: listAffiliates, render: (ctx, page) => mapPage(page, (a) => serializeAffiliate(a, ctx.baseUrl)), idOf: () => null });
export const retrieveAffiliateOp = defineOperation({ name: 'affiliates.retrieve', summary: 'Retrieve an affiliate', description: 'One affiliate by id, with referral link, click and conversion counts and lifetime commission.', input: affiliateIdSchema, write: false, output: affiliateEntity, run: retrieveAffiliate, render: (ctx, a) => serializeAffiliate(a, ctx.baseUrl) });
export const listCommissionsOp = defineOperation({
  name: 'affiliates.commissions.list',
  summary: "List an affiliate's commissions",
  description: 'Filter by `status` (`pending`, `approved`, `paid`). Paged by `page_number` and `page_size` (at most 100).',
  input: listCommissionsSchema,
  write: false,
  output: pageOf(commissionEntity),
  run: listCommissions,
  render: (ctx, { program, ...page }) => mapPage(page, (c) => serializeCommission(c, program, ctx.clock.now())),
  idOf: () => null,
});
/** Extensions: the program's settings, and recording a payout of approved commissions. */
export const retrieveAffiliateProgramOp = defineOperation({ name: 'affiliates.program.retrieve', summary: 'Retrieve the affiliate program', description: "This store's affiliate program settings (commission percent, hold days, cookie days).", input: noInputSchema, write: false, output: affiliateProgramEntity, run: retrieveProgram, render: (_ctx, p) => serializeProgram(p) });
export const updateAffiliateProgramOp = defineOperation({ name: 'affiliates.program.update', summary: 'Update the affiliate program', description: 'Only the fields supplied change (`commission_percent` with at most two decimals, `hold_days`, `cookie_days`); at least one is required.', input: updateAffiliateProgramSchema, write: true, output: affiliateProgramEntity, run: updateProgram, render: (_ctx, p) => serializeProgram(p) });
export const recordAffiliatePayoutOp = defineOperation({ name: 'affiliates.payouts.create', summary: 'Record a payout to an affiliate', description: "Marks the affiliate's approved commissions, net of reversals, as paid out (the payment itself happens outside this service) and answers what was marked per currency.", input: affiliateIdSchema, write: true, output: affiliatePayoutEntity, run: recordPayout, render: (_ctx, p) => serializePayout(p), idOf: (p) => p.affiliateId });
