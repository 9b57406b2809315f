import { Creem } from 'creem';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectEventsParse } from '../support/events.js';
import { expectLedgerConsistent } from '../support/ledger-check.js';
import { creditsFixture } from '../support/credits-fixture.js';
import { api } from '../support/service.js';

/**
 * Customer credits: the fifteen operations through the official client (which validates every
 * answer against its models), the structured error body, and the ledger's invariants under
 * concurrent postings.
 */
describe('customer credits over /v1', () => {
  const f = creditsFixture();
  const { key, account, balance } = f;
  let client: Creem;
  let other: ReturnType<typeof api>;
  beforeAll(async () => {
    client = new Creem({ apiKey: f.store.test_api_key, serverURL: f.service.testUrl });
    other = api(f.service.testUrl, (await f.service.createStore('Other')).test_api_key);
  });

  it('runs all fifteen operations through the official client', async () => {
    const created = await client.customerCredits.createAccount({ customerId: f.customerId, name: 'API calls', unitLabel: 'calls', initialBalance: '100' });
    expect(created).toMatchObject({ customerId: f.customerId, name: 'API calls', unitLabel: 'calls', status: 'active' });
    expect(await client.customerCredits.getAccount(created.id)).toMatchObject({ id: created.id });
    expect((await client.customerCredits.getAccountBalance(created.id)).balance).toBe('100');

    const credited = await client.customerCredits.creditAccount(created.id, { amount: '50', reference: 'order_1', idempotencyKey: key() });
    expect(credited.entries.find((e) => e.accountId === created.id)).toMatchObject({ side: 'credit', amount: '50' });
    const debited = await client.customerCredits.debitAccount(created.id, { amount: '30', reference: 'usage_1', idempotencyKey: key() });
    expect((await client.customerCredits.getAccountBalance(created.id)).balance).toBe('120');

    const second = await client.customerCredits.createAccount({ customerId: f.customerId, name: 'Second', unitLabel: 'calls' });
    const posted = await client.customerCredits.postTransaction({
      reference: 'transfer_1',
      idempotencyKey: key(),
      entries: [
        { accountId: created.id, side: 'debit', amount: '20' },
        { accountId: second.id, side: 'credit', amount: '20' },
      ],
    });
    expect(posted.entries).toHaveLength(2);
    expect(await client.customerCredits.getTransaction(posted.id)).toMatchObject({ id: posted.id, reference: 'transfer_1' });
    expect((await client.customerCredits.listTransactionsByReference('transfer_1')).data.map((t) => t.id)).toEqual([posted.id]);

    const reversed = await client.customerCredits.reverseTransaction(created.id, { transactionId: debited.id });
    expect(reversed.reversalOf).toBe(debited.id);
    const reversedById = await client.customerCredits.reverseTransactionById(posted.id);
    expect(reversedById.reversalOf).toBe(posted.id);
    expect((await client.customerCredits.getAccountBalance(created.id)).balance).toBe('150');
    expect((await client.customerCredits.getAccountBalance(second.id)).balance).toBe('0');

    // Pages of 2 through the client's own iterator: every entry once, newest first.
    const seen: string[] = [];
    for await (const page of await client.customerCredits.listEntries(created.id, 2)) seen.push(...page.result.data.map((e) => e.id));
    expect(seen).toHaveLength(6);
    expect([...seen].sort().reverse()).toEqual(seen);
    const accounts: string[] = [];
    for await (const page of await client.customerCredits.listAccounts(1, f.customerId)) accounts.push(...page.result.data.map((a) => a.id));
    expect(accounts).toEqual(expect.arrayContaining([created.id, second.id]));

    expect((await client.customerCredits.freezeAccount(second.id)).status).toBe('frozen');
    expect((await client.customerCredits.unfreezeAccount(second.id)).status).toBe('active');
    expect((await client.customerCredits.closeAccount(second.id)).status).toBe('closed');
    await expectLedgerConsistent(f.service.db);
  });

  it('refuses bad amounts with a structured error naming the field, writing nothing', async () => {
    // A unit of its own: the store's account of a unit holds minus what all its customers hold.
    const id = await account('Strict', '10', 'huge');
    for (const amount of ['0', '-5', '1.5', '1e3', '+5', '007', ' 5', '9223372036854775808', 5, '']) {
      const res = await f.call('POST', `/v1/customer-credits/accounts/${id}/credit`, { amount, reference: 'r', idempotency_key: key() });
      expect(res.status, JSON.stringify(amount)).toBe(400);
      expect(res.json.error).toMatchObject({ type: 'invalid_request_error', code: 'validation_failed', param: 'amount', request_id: expect.any(String) });
    }
    const largest = await f.call('POST', `/v1/customer-credits/accounts/${id}/credit`, { amount: '9223372036854775797', reference: 'r', idempotency_key: key() });
    expect(largest.status, largest.text).toBe(201);
    const beyond = await f.call('POST', `/v1/customer-credits/accounts/${id}/credit`, { amount: '1', reference: 'r', idempotency_key: key() });
    expect([beyond.status, beyond.json.error.param]).toEqual([400, 'amount']);
    expect(await balance(id)).toBe('9223372036854775807');

    const unbalanced = await f.call('POST', '/v1/customer-credits/transactions', {
      reference: 'r',
      idempotency_key: key(),
      entries: [
        { account_id: id, side: 'debit', amount: '5' },
        { account_id: await account('Other bucket'), side: 'credit', amount: '4' },
      ],
    });
    expect(unbalanced.status).toBe(422);
    expect(unbalanced.json.error).toMatchObject({ code: 'unbalanced_transaction', param: 'entries' });
    const badEntry = await f.call('POST', '/v1/customer-credits/transactions', { reference: 'r', idempotency_key: key(), entries: [{ account_id: id, side: 'debit', amount: '5' }, { account_id: id, side: 'sideways', amount: '5' }] });
    expect([badEntry.status, badEntry.json.error.param]).toEqual([400, 'entries[1].side']);
    const taken = await f.call('POST', '/v1/customer-credits/accounts', { customer_id: f.customerId, name: ' strict ' });
    expect([taken.status, taken.json.error.code, taken.json.error.param]).toEqual([409, 'account_exists', 'name']);
  });

  it('refuses a debit beyond the balance whole, and an account in the wrong state, with 409', async () => {
    const id = await account('Small', '5');
    const refusedKey = key();
    const over = await f.call('POST', `/v1/customer-credits/accounts/${id}/debit`, { amount: '6', reference: 'r', idempotency_key: refusedKey });
    expect([over.status, over.json.error.code]).toEqual([409, 'insufficient_balance']);
    // A refusal writes nothing, its key included: the same request posts once the balance allows.
    expect((await f.call('GET', `/v1/customer-credits/transactions?reference=r`)).json.data.filter((t: { idempotency_key: string }) => t.idempotency_key === refusedKey)).toEqual([]);
    expect((await f.call('POST', `/v1/customer-credits/accounts/${id}/credit`, { amount: '1', reference: 'top-up', idempotency_key: key() })).status).toBe(201);
    const retried = await f.call('POST', `/v1/customer-credits/accounts/${id}/debit`, { amount: '6', reference: 'r', idempotency_key: refusedKey });
    expect(retried.status, retried.text).toBe(201);
    expect(await balance(id)).toBe('0');
    expect((await f.call('POST', `/v1/customer-credits/accounts/${id}/credit`, { amount: '5', reference: 'top-up', idempotency_key: key() })).status).toBe(201);
    await f.call('POST', `/v1/customer-credits/accounts/${id}/freeze`);
    const frozen = await f.call('POST', `/v1/customer-credits/accounts/${id}/debit`, { amount: '1', reference: 'r', idempotency_key: key() });
    expect([frozen.status, frozen.json.error.code]).toEqual([409, 'account_frozen']);
    expect((await f.call('GET', `/v1/customer-credits/accounts/${id}`)).json.status).toBe('frozen');
    const closing = await f.call('POST', `/v1/customer-credits/accounts/${id}/close`);
    expect([closing.status, closing.json.error.code]).toEqual([409, 'balance_not_zero']);
    expect(await balance(id)).toBe('5');
    // Another store's key sees none of it.
    expect((await other('GET', `/v1/customer-credits/accounts/${id}`)).status).toBe(404);
    expect((await other('POST', `/v1/customer-credits/accounts/${id}/credit`, { amount: '1', reference: 'r', idempotency_key: key() })).status).toBe(404);
  });

  it('reverses a transaction at most once, and refuses a reversal that would overdraw', async () => {
    const id = await account('Reversible', '0');
    const grant = (await f.call('POST', `/v1/customer-credits/accounts/${id}/credit`, { amount: '10', reference: 'r', idempotency_key: key() })).json;
    const twice = await Promise.all([1, 2, 3].map(() => f.call('POST', `/v1/customer-credits/transactions/${grant.id}/reverse`)));
    expect(twice.filter((r) => r.status === 201)).toHaveLength(1);
    expect(twice.filter((r) => r.status === 409).map((r) => r.json.error.code)).toEqual(['already_reversed', 'already_reversed']);
    expect(await balance(id)).toBe('0');

    const second = (await f.call('POST', `/v1/customer-credits/accounts/${id}/credit`, { amount: '10', reference: 'r', idempotency_key: key() })).json;
    await f.call('POST', `/v1/customer-credits/accounts/${id}/debit`, { amount: '8', reference: 'r', idempotency_key: key() });
    const overdraw = await f.call('POST', `/v1/customer-credits/accounts/${id}/reverse`, { transaction_id: second.id });
    expect([overdraw.status, overdraw.json.error.code]).toEqual([409, 'insufficient_balance']);
    expect(await balance(id)).toBe('2');
    await expectLedgerConsistent(f.service.db);
  });

  it('answers the balance at an instant from the entries, and records events whose bodies parse with the client’s models', async () => {
    const id = await account('Timed', '4');
    const before = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 5));
    await f.call('POST', `/v1/customer-credits/accounts/${id}/debit`, { amount: '4', reference: 'spent', idempotency_key: key() });
    expect((await f.call('GET', `/v1/customer-credits/accounts/${id}/balance?at=${encodeURIComponent(before)}`)).json).toMatchObject({ balance: '4', as_of: before });
    expect(await balance(id)).toBe('0');
    const events = await f.service.db.prisma.event.findMany({ where: { type: { in: ['credits.granted', 'credits.consumed', 'customer_credits.exhausted'] }, payload: { path: ['bucket_name'], equals: 'Timed' } }, orderBy: { id: 'asc' } });
    expect(events.map((e) => e.type)).toEqual(['credits.granted', 'credits.consumed', 'customer_credits.exhausted']);
    await expectEventsParse(f.service.db, ['credits.granted', 'credits.consumed', 'customer_credits.exhausted']);
  });

  it('runs through GraphQL: customer -> credit accounts with balances and entries, and the mutations with userErrors', async () => {
    const gql = async (query: string, variables: object = {}) => {
      const res = await f.call('POST', '/graphql', { query, variables });
      expect(res.json?.errors, res.text).toBeUndefined();
      return res.json;
    };
    const opened = await gql(
      'mutation($c: ID!) { createCreditAccount(input: { customerId: $c, name: "GraphQL", unitLabel: "images", initialBalance: "9" }) { account { id balance status } userErrors { field code } } }',
      { c: f.customerId },
    );
    const id = opened.data.createCreditAccount.account.id;
    expect(opened.data.createCreditAccount).toMatchObject({ account: { balance: '9', status: 'active' }, userErrors: [] });
    const debit = await gql('mutation($id: ID!, $k: String!) { debitCreditAccount(input: { id: $id, amount: "4", reference: "gql", idempotencyKey: $k }) { transaction { id entries { side amount balanceAfter } } userErrors { field code } } }', { id, k: key() });
    expect(debit.data.debitCreditAccount.userErrors).toEqual([]);
    const over = await gql('mutation($id: ID!, $k: String!) { debitCreditAccount(input: { id: $id, amount: "6", reference: "gql", idempotencyKey: $k }) { transaction { id } userErrors { field code } } }', { id, k: key() });
    expect(over.data.debitCreditAccount).toEqual({ transaction: null, userErrors: [{ field: 'amount', code: 'insufficient_balance' }] });
    const bad = await gql('mutation($id: ID!, $k: String!) { creditCreditAccount(input: { id: $id, amount: "1.5", reference: "gql", idempotencyKey: $k }) { userErrors { field code } } }', { id, k: key() });
    expect(bad.data.creditCreditAccount.userErrors).toEqual([{ field: 'amount', code: 'validation_failed' }]);

    const at = new Date(Date.now() + 60_000).toISOString();
    const reversed = await gql(
      'mutation($id: ID!, $t: ID!) { reverseCreditAccountTransaction(input: { id: $id, transactionId: $t }) { transaction { reversalOf { id } } userErrors { field code } } }',
      { id, t: debit.data.debitCreditAccount.transaction.id },
    );
    expect(reversed.data.reverseCreditAccountTransaction).toEqual({ transaction: { reversalOf: { id: debit.data.debitCreditAccount.transaction.id } }, userErrors: [] });
    const past = await gql('query($id: ID!, $at: DateTime!) { node(id: $id) { ... on CreditAccount { balance balanceAt(at: $at) } } }', { id, at });
    expect(past.data.node).toEqual({ balance: '9', balanceAt: '9' });
    const debitAgain = await gql('mutation($id: ID!, $k: String!) { debitCreditAccount(input: { id: $id, amount: "4", reference: "gql", idempotencyKey: $k }) { userErrors { field code } } }', { id, k: key() });
    expect(debitAgain.data.debitCreditAccount.userErrors).toEqual([]);
    const graph = await gql(
      'query($c: ID!) { node(id: $c) { ... on Customer { creditAccounts(first: 50) { totalCount edges { node { id name balance entries(first: 5) { edges { node { side amount balanceAfter } } } } } } } } }',
      { c: f.customerId },
    );
    const accounts = graph.data.node.creditAccounts.edges.map((e: any) => e.node);
    const mine = accounts.find((a: any) => a.id === id);
    expect(mine).toMatchObject({ name: 'GraphQL', balance: '5' });
    // Newest first: the second debit, the reversal of the first, the first debit, the seed.
    expect(mine.entries.edges.map((e: any) => e.node)).toEqual([
      { side: 'debit', amount: '4', balanceAfter: '5' },
      { side: 'credit', amount: '4', balanceAfter: '9' },
      { side: 'debit', amount: '4', balanceAfter: '5' },
      { side: 'credit', amount: '9', balanceAfter: '9' },
    ]);
  });

  it('pages entries both ways by cursor, has_more true only when more exist', async () => {
    const id = await account('Paged', '1');
    for (let i = 0; i < 4; i++) await f.call('POST', `/v1/customer-credits/accounts/${id}/credit`, { amount: '1', reference: 'p', idempotency_key: key() });
    const page = async (q: string) => (await f.call('GET', `/v1/customer-credits/accounts/${id}/entries?${q}`)).json as { data: { id: string }[]; has_more: boolean };
    const all = (await page('limit=100')).data.map((e) => e.id);
    expect(all).toHaveLength(5);
    expect(await page('limit=2')).toMatchObject({ data: [{ id: all[0] }, { id: all[1] }], has_more: true });
    expect(await page(`limit=2&starting_after=${all[2]}`)).toMatchObject({ data: [{ id: all[3] }, { id: all[4] }], has_more: false });
    expect(await page(`limit=2&ending_before=${all[3]}`)).toMatchObject({ data: [{ id: all[1] }, { id: all[2] }], has_more: true });
    expect(await page(`limit=5&ending_before=${all[2]}`)).toMatchObject({ data: [{ id: all[0] }, { id: all[1] }], has_more: false });
    for (const bad of ['limit=0', 'limit=101', 'limit=2.5']) expect((await f.call('GET', `/v1/customer-credits/accounts/${id}/entries?${bad}`)).json.error.param).toBe('limit');
  });

  it('reads a page of accounts with their balances in as many statements for 30 accounts as for 3', async () => {
    const query = 'query($c: ID!) { node(id: $c) { ... on Customer { creditAccounts(first: 50) { edges { node { id balance entries(first: 2) { edges { node { amount } } } } } } } } }';
    const statementsFor = async (customerId: string) => {
      const before = f.statements;
      const res = await f.call('POST', '/graphql', { query, variables: { c: customerId } });
      expect(res.json.errors, res.text).toBeUndefined();
      return { statements: f.statements - before, accounts: res.json.data.node.creditAccounts.edges.length };
    };
    const customers = await Promise.all([3, 30].map(async (count) => {
      const id = (await f.call('POST', '/v1/customers', { email: `graph-${count}@example.com` })).json.id as string;
      for (let i = 0; i < count; i++) await f.call('POST', '/v1/customer-credits/accounts', { customer_id: id, name: `b${i}`, initial_balance: '3' });
      return id;
    }));
    const [few, many] = [await statementsFor(customers[0]!), await statementsFor(customers[1]!)];
    expect([few.accounts, many.accounts]).toEqual([3, 30]);
    expect(many.statements).toBe(few.statements);
  });
});
