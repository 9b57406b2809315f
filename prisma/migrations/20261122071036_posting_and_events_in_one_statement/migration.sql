-- A ledger posting, its events and their webhook deliveries in one statement (one round
-- trip): the accounts are locked inside the function, and the entry ids are made there, after
-- the locks, from the database's clock, so an account's entries sort by id in the order they
-- were applied whichever process posted them.

-- A ULID (26 characters, Crockford base32) for the instant p_at, at microsecond resolution:
-- 48 bits of milliseconds, then 10 bits of the microseconds within it and 14 bits of p_seq
-- (rows made in one statement keep their order), then 56 random bits.
CREATE FUNCTION ulid_at(p_at TIMESTAMPTZ, p_seq INTEGER) RETURNS TEXT LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  alphabet CONSTANT TEXT := '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
  us BIGINT := floor(extract(epoch FROM p_at) * 1000000)::BIGINT;
  ms BIGINT := us / 1000;
  hi BIGINT := ((us % 1000) << 30) | ((p_seq::BIGINT & 16383) << 16) | floor(random() * 65536)::BIGINT;
  lo BIGINT := (floor(random() * 1048576)::BIGINT << 20) | floor(random() * 1048576)::BIGINT;
  out TEXT := '';
BEGIN
  FOR i IN REVERSE 9..0 LOOP out := out || substr(alphabet, ((ms >> (5 * i)) & 31)::INTEGER + 1, 1); END LOOP;
  FOR i IN REVERSE 7..0 LOOP out := out || substr(alphabet, ((hi >> (5 * i)) & 31)::INTEGER + 1, 1); END LOOP;
  FOR i IN REVERSE 7..0 LOOP out := out || substr(alphabet, ((lo >> (5 * i)) & 31)::INTEGER + 1, 1); END LOOP;
  RETURN out;
END
$$;

-- Events of one tenant and, in the same statement, a delivery to every enabled endpoint
-- subscribed to the event's type (transactional outbox: a committed event is never missing
-- from an endpoint's queue). The only writer of events (src/modules/events/events.service.ts
-- calls it, and so does credit_ledger_post). Delivery ids follow the events' order.
CREATE FUNCTION record_events(p_store TEXT, p_mode "Mode", p_now TIMESTAMPTZ, p_ids TEXT[], p_types TEXT[], p_payloads JSONB[])
RETURNS VOID LANGUAGE plpgsql AS $$
DECLARE
  v_at TIMESTAMPTZ := clock_timestamp();
BEGIN
  INSERT INTO "Event" ("id", "storeId", "mode", "type", "payload", "createdAt")
  SELECT e.id, p_store, p_mode, e.type, e.payload, p_now FROM unnest(p_ids, p_types, p_payloads) AS e(id, type, payload);

  INSERT INTO "WebhookDelivery" ("id", "storeId", "mode", "eventId", "endpointId", "nextAttemptAt", "createdAt")
  SELECT 'dlv_' || ulid_at(v_at, (row_number() OVER (ORDER BY e.ord, w."id"))::INTEGER), p_store, p_mode, e.id, w."id", p_now, p_now
    FROM unnest(p_ids, p_types) WITH ORDINALITY AS e(id, type, ord)
    JOIN "WebhookEndpoint" w ON w."storeId" = p_store AND w."mode" = p_mode AND w."enabled" AND w."deletedAt" IS NULL AND e.type = ANY(w."events");
END
$$;

DROP FUNCTION credit_ledger_post(TEXT, "Mode", TEXT, TEXT, TEXT, TEXT, TEXT, TIMESTAMPTZ, TEXT[], TEXT[], TEXT[], BIGINT[]);

-- One ledger posting (the pgledger design): claim the idempotency key, lock the accounts in id
-- order, check them, write the entries with their balance after, the accounts' new balances
-- and versions, the events, and the auto-recharge job of an account a debit took below its
-- threshold (job kind p_recharge_kind, scheduled as src/jobs/scheduled-jobs.ts scheduleJobs
-- does). Called by src/modules/credits/ledger.ts. Entries come in the order they are to be
-- applied (the caller puts credits first). On any outcome but 'ok' nothing stays written (the
-- claimed key is given back), so the call is safe as a statement of its own as well as inside
-- a caller's transaction.
--
-- Events, per customer account whose balance moved, accounts in id order: `credits.granted`
-- (net in) or `credits.consumed` (net out), then `customer_credits.exhausted` when a debit
-- left the balance at zero. p_event_ids holds two ids per distinct account of the posting, in
-- account id order (the caller's, so events keep the order of the ids it issues).
--
-- Returns one row per entry, in the order applied ('ok'), or a single row naming the outcome:
-- replayed or key_reused (account_id: the first transaction's id), not_found, frozen, closed,
-- overflow or insufficient (account_id: the account concerned; balance_after: its balance).
CREATE FUNCTION credit_ledger_post(
  p_store TEXT, p_mode "Mode", p_txn TEXT, p_reference TEXT, p_key TEXT, p_hash TEXT, p_reversal_of TEXT, p_now TIMESTAMPTZ,
  p_accounts TEXT[], p_sides TEXT[], p_amounts BIGINT[], p_event_ids TEXT[], p_recharge_kind TEXT
) RETURNS TABLE (
  outcome TEXT, account_id TEXT, entry_id TEXT, side TEXT, amount BIGINT, balance_after BIGINT
) LANGUAGE plpgsql AS $$
DECLARE
  v_first RECORD;
  v_id TEXT;
  v_status TEXT;
  v_at TIMESTAMPTZ;
  v_occurred TEXT := to_char(p_now AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"');
  v_ids TEXT[];
  v_types TEXT[];
  v_payloads JSONB[];
  acc RECORD;
BEGIN
  INSERT INTO "LedgerTransaction" ("id", "storeId", "mode", "reference", "idempotencyKey", "requestHash", "reversalOfId", "createdAt")
  VALUES (p_txn, p_store, p_mode, p_reference, p_key, p_hash, p_reversal_of, p_now)
  ON CONFLICT ("storeId", "mode", "idempotencyKey") DO NOTHING;
  IF NOT FOUND THEN
    SELECT t."id", t."requestHash" INTO v_first FROM "LedgerTransaction" t WHERE t."storeId" = p_store AND t."mode" = p_mode AND t."idempotencyKey" = p_key;
    RETURN QUERY SELECT CASE WHEN v_first."requestHash" = p_hash THEN 'replayed' ELSE 'key_reused' END, v_first."id"::TEXT,
      NULL::TEXT, NULL::TEXT, NULL::BIGINT, NULL::BIGINT;
    RETURN;
  END IF;

  -- By id alone (the caller found each account in its tenant; the check below says so again):
  -- the planner then always takes the primary key, whatever its statistics.
  PERFORM 1 FROM "CreditAccount" a WHERE a."id" = ANY(p_accounts) ORDER BY a."id" FOR UPDATE;
  -- After the locks: the entries' ids sort after those of every posting that held them before.
  v_at := clock_timestamp();

  -- A missing account (or one of another tenant) first, then one that is not active.
  SELECT u.account, a."status"::TEXT INTO v_id, v_status
    FROM unnest(p_accounts) WITH ORDINALITY AS u(account, ord)
    LEFT JOIN "CreditAccount" a ON a."id" = u.account AND a."storeId" = p_store AND a."mode" = p_mode
   WHERE a."id" IS NULL OR a."status" <> 'active'
   ORDER BY a."id" IS NOT NULL, u.ord LIMIT 1;
  IF v_id IS NOT NULL THEN
    DELETE FROM "LedgerTransaction" WHERE "id" = p_txn;
    RETURN QUERY SELECT coalesce(v_status, 'not_found'), v_id, NULL::TEXT, NULL::TEXT, NULL::BIGINT, NULL::BIGINT;
    RETURN;
  END IF;

  FOR acc IN
    SELECT a."id", a."owner"::TEXT AS owner, a."balance", a."balance"::NUMERIC + m.net AS after
      FROM "CreditAccount" a
      JOIN (SELECT u.account, sum(CASE u.side WHEN 'credit' THEN u.amount::NUMERIC ELSE -u.amount::NUMERIC END) AS net, min(u.ord) AS first
              FROM unnest(p_accounts, p_sides, p_amounts) WITH ORDINALITY AS u(account, side, amount, ord) GROUP BY u.account) m ON m.account = a."id"
     ORDER BY m.first
  LOOP
    IF acc.after > 9223372036854775807 OR acc.after < -9223372036854775807 THEN
      DELETE FROM "LedgerTransaction" WHERE "id" = p_txn;
      RETURN QUERY SELECT 'overflow', acc.id, NULL::TEXT, NULL::TEXT, NULL::BIGINT, acc.balance;
      RETURN;
    END IF;
    IF acc.owner = 'customer' AND acc.after < 0 THEN
      DELETE FROM "LedgerTransaction" WHERE "id" = p_txn;
      RETURN QUERY SELECT 'insufficient', acc.id, NULL::TEXT, NULL::TEXT, NULL::BIGINT, acc.balance;
      RETURN;
    END IF;
  END LOOP;

  INSERT INTO "LedgerEntry" ("id", "storeId", "mode", "transactionId", "accountId", "side", "amount", "balanceAfter", "createdAt")
  SELECT 'cce_' || ulid_at(v_at, u.ord::INTEGER), p_store, p_mode, p_txn, u.account, u.side::"LedgerSide", u.amount,
         a."balance" + (sum(CASE u.side WHEN 'credit' THEN u.amount ELSE -u.amount END) OVER (PARTITION BY u.account ORDER BY u.ord))::BIGINT,
         p_now
    FROM unnest(p_accounts, p_sides, p_amounts) WITH ORDINALITY AS u(account, side, amount, ord)
    JOIN "CreditAccount" a ON a."id" = u.account;

  -- The events, from the balances before the update below.
  SELECT array_agg(ev.id ORDER BY ev.n), array_agg(ev.type ORDER BY ev.n), array_agg(ev.payload ORDER BY ev.n)
    INTO v_ids, v_types, v_payloads
    FROM (
      SELECT p_event_ids[2 * m.rank - 1] AS id, 2 * m.rank - 1 AS n,
             CASE WHEN m.net > 0 THEN 'credits.granted' ELSE 'credits.consumed' END AS type,
             jsonb_build_object(
               'id', p_txn, 'object', CASE WHEN m.net > 0 THEN 'customer_credits_grant' ELSE 'customer_credits_consumption' END,
               'customer_id', a."customerId", 'account_id', a."id", 'bucket_name', a."name", 'unit_label', a."unitLabel",
               'amount_minor_units', abs(m.net)::TEXT, 'balance_after_minor_units', (a."balance" + m.net)::TEXT,
               'reference', p_reference, 'occurred_at', v_occurred) AS payload
        FROM "CreditAccount" a JOIN (
          SELECT u.account, sum(CASE u.side WHEN 'credit' THEN u.amount ELSE -u.amount END)::BIGINT AS net, dense_rank() OVER (ORDER BY u.account) AS rank
            FROM unnest(p_accounts, p_sides, p_amounts) AS u(account, side, amount) GROUP BY u.account
        ) m ON m.account = a."id"
       WHERE a."owner" = 'customer' AND m.net <> 0
      UNION ALL
      -- The episode is named by the posting that emptied the bucket; it ends when credits are next added.
      SELECT p_event_ids[2 * m.rank], 2 * m.rank, 'customer_credits.exhausted',
             jsonb_build_object(
               'id', a."id" || ':' || p_txn, 'object', 'customer_credits_exhaustion',
               'customer_id', a."customerId", 'bucket_name', a."name", 'unit_label', a."unitLabel",
               'shortfall_minor_units', '0', 'occurred_at', v_occurred)
        FROM "CreditAccount" a JOIN (
          SELECT u.account, sum(CASE u.side WHEN 'credit' THEN u.amount ELSE -u.amount END)::BIGINT AS net, dense_rank() OVER (ORDER BY u.account) AS rank
            FROM unnest(p_accounts, p_sides, p_amounts) AS u(account, side, amount) GROUP BY u.account
        ) m ON m.account = a."id"
       WHERE a."owner" = 'customer' AND m.net < 0 AND a."balance" + m.net = 0
    ) ev;
  IF v_ids IS NOT NULL THEN
    PERFORM record_events(p_store, p_mode, p_now, v_ids, v_types, v_payloads);
  END IF;

  WITH m AS (
    SELECT u.account, sum(CASE u.side WHEN 'credit' THEN u.amount ELSE -u.amount END)::BIGINT AS net
      FROM unnest(p_accounts, p_sides, p_amounts) AS u(account, side, amount) GROUP BY u.account
  ), moved AS (
    UPDATE "CreditAccount" a SET "balance" = a."balance" + m.net, "version" = a."version" + 1, "updatedAt" = p_now
      FROM m WHERE a."id" = m.account
    RETURNING a."id", a."rechargeThreshold" IS NOT NULL AND m.net < 0 AND a."balance" < a."rechargeThreshold" AS due
  )
  -- A debit below the account's auto-recharge threshold: its recharge job, once however many debits.
  INSERT INTO "Job" ("id", "storeId", "mode", "kind", "subjectId", "status", "attemptCount", "nextAttemptAt", "lastError", "completedAt", "createdAt")
  SELECT 'job_' || ulid_at(v_at, 0), p_store, p_mode, p_recharge_kind, moved."id", 'pending', 0, p_now, NULL, NULL, p_now FROM moved WHERE moved.due
  ON CONFLICT ("kind", "subjectId") DO UPDATE SET "status" = EXCLUDED."status", "attemptCount" = EXCLUDED."attemptCount", "nextAttemptAt" = EXCLUDED."nextAttemptAt",
    "lastError" = EXCLUDED."lastError", "completedAt" = EXCLUDED."completedAt"
    WHERE "Job"."storeId" = EXCLUDED."storeId" AND "Job"."mode" = EXCLUDED."mode";

  RETURN QUERY
  SELECT 'ok', e."accountId", e."id", e."side"::TEXT, e."amount", e."balanceAfter" FROM "LedgerEntry" e WHERE e."transactionId" = p_txn ORDER BY e."id";
END
$$;
