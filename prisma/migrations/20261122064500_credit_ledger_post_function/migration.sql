-- One ledger posting in one round trip (the pgledger design): claim the idempotency key, lock
-- the accounts in id order, check them, write the entries with their balance after and the
-- accounts' new balances and versions. Called by src/modules/credits/ledger.ts (through
-- src/db/functions.ts) inside the caller's transaction; on any outcome but 'ok' nothing is
-- written but the claimed key, and the caller refuses the request, rolling it back. Entries
-- come in the order they are to be applied (the caller puts credits first).
--
-- Returns one row per account of the posting ('ok'), or a single row naming the outcome:
-- replayed or key_reused (account_id: the first transaction's id), not_found, frozen, closed,
-- overflow or insufficient (account_id: the account concerned).
CREATE FUNCTION credit_ledger_post(
  p_store TEXT, p_mode "Mode", p_txn TEXT, p_reference TEXT, p_key TEXT, p_hash TEXT, p_reversal_of TEXT, p_now TIMESTAMPTZ,
  p_entry_ids TEXT[], p_accounts TEXT[], p_sides TEXT[], p_amounts BIGINT[]
) RETURNS TABLE (
  outcome TEXT, account_id TEXT, owner TEXT, customer_id TEXT, name TEXT, unit_label TEXT,
  recharge_threshold BIGINT, balance_before BIGINT, balance_after BIGINT
) LANGUAGE plpgsql AS $$
DECLARE
  v_first RECORD;
  v_id TEXT;
  v_status TEXT;
  acc RECORD;
BEGIN
  INSERT INTO "LedgerTransaction" ("id", "storeId", "mode", "reference", "idempotencyKey", "requestHash", "reversalOfId", "createdAt")
  VALUES (p_txn, p_store, p_mode, p_reference, p_key, p_hash, p_reversal_of, p_now)
  ON CONFLICT ("storeId", "mode", "idempotencyKey") DO NOTHING;
  IF NOT FOUND THEN
    SELECT t."id", t."requestHash" INTO v_first FROM "LedgerTransaction" t WHERE t."storeId" = p_store AND t."mode" = p_mode AND t."idempotencyKey" = p_key;
    RETURN QUERY SELECT CASE WHEN v_first."requestHash" = p_hash THEN 'replayed' ELSE 'key_reused' END, v_first."id"::TEXT,
      NULL::TEXT, NULL::TEXT, NULL::TEXT, NULL::TEXT, NULL::BIGINT, NULL::BIGINT, NULL::BIGINT;
    RETURN;
  END IF;

  PERFORM 1 FROM "CreditAccount" a WHERE a."id" = ANY(p_accounts) AND a."storeId" = p_store AND a."mode" = p_mode ORDER BY a."id" FOR UPDATE;

  SELECT u.account INTO v_id FROM unnest(p_accounts) WITH ORDINALITY AS u(account, ord)
   WHERE NOT EXISTS (SELECT 1 FROM "CreditAccount" a WHERE a."id" = u.account AND a."storeId" = p_store AND a."mode" = p_mode)
   ORDER BY u.ord LIMIT 1;
  IF v_id IS NOT NULL THEN
    RETURN QUERY SELECT 'not_found', v_id, NULL::TEXT, NULL::TEXT, NULL::TEXT, NULL::TEXT, NULL::BIGINT, NULL::BIGINT, NULL::BIGINT;
    RETURN;
  END IF;
  SELECT a."id", a."status"::TEXT INTO v_id, v_status FROM unnest(p_accounts) WITH ORDINALITY AS u(account, ord) JOIN "CreditAccount" a ON a."id" = u.account
   WHERE a."status" <> 'active' ORDER BY u.ord LIMIT 1;
  IF v_id IS NOT NULL THEN
    RETURN QUERY SELECT v_status, v_id, NULL::TEXT, NULL::TEXT, NULL::TEXT, NULL::TEXT, NULL::BIGINT, NULL::BIGINT, NULL::BIGINT;
    RETURN;
  END IF;

  FOR acc IN
    SELECT a."id", a."owner"::TEXT AS owner, a."balance"::NUMERIC + m.net AS after
      FROM "CreditAccount" a
      JOIN (SELECT u.account, sum(CASE u.side WHEN 'credit' THEN u.amount::NUMERIC ELSE -u.amount::NUMERIC END) AS net, min(u.ord) AS first
              FROM unnest(p_accounts, p_sides, p_amounts) WITH ORDINALITY AS u(account, side, amount, ord) GROUP BY u.account) m ON m.account = a."id"
     ORDER BY m.first
  LOOP
    IF acc.after > 9223372036854775807 OR acc.after < -9223372036854775807 THEN
      RETURN QUERY SELECT 'overflow', acc.id, NULL::TEXT, NULL::TEXT, NULL::TEXT, NULL::TEXT, NULL::BIGINT, NULL::BIGINT, NULL::BIGINT;
      RETURN;
    END IF;
    IF acc.owner = 'customer' AND acc.after < 0 THEN
      RETURN QUERY SELECT 'insufficient', acc.id, NULL::TEXT, NULL::TEXT, NULL::TEXT, NULL::TEXT, NULL::BIGINT, NULL::BIGINT, NULL::BIGINT;
      RETURN;
    END IF;
  END LOOP;

  INSERT INTO "LedgerEntry" ("id", "storeId", "mode", "transactionId", "accountId", "side", "amount", "balanceAfter", "createdAt")
  SELECT u.id, p_store, p_mode, p_txn, u.account, u.side::"LedgerSide", u.amount,
         a."balance" + (sum(CASE u.side WHEN 'credit' THEN u.amount ELSE -u.amount END) OVER (PARTITION BY u.account ORDER BY u.ord))::BIGINT,
         p_now
    FROM unnest(p_entry_ids, p_accounts, p_sides, p_amounts) WITH ORDINALITY AS u(id, account, side, amount, ord)
    JOIN "CreditAccount" a ON a."id" = u.account;

  RETURN QUERY
  WITH m AS (
    SELECT u.account, sum(CASE u.side WHEN 'credit' THEN u.amount ELSE -u.amount END)::BIGINT AS net
      FROM unnest(p_accounts, p_sides, p_amounts) AS u(account, side, amount) GROUP BY u.account
  ), moved AS (
    UPDATE "CreditAccount" a SET "balance" = a."balance" + m.net, "version" = a."version" + 1, "updatedAt" = p_now
      FROM m WHERE a."id" = m.account
    RETURNING a."id", a."owner"::TEXT AS owner, a."customerId", a."name", a."unitLabel", a."rechargeThreshold", a."balance" - m.net AS before, a."balance" AS after
  )
  SELECT 'ok', moved."id", moved.owner, moved."customerId", moved."name", moved."unitLabel", moved."rechargeThreshold", moved.before, moved.after FROM moved ORDER BY moved."id";
END
$$;
