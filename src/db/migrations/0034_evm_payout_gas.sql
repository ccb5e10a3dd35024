-- What an EVM refund or payout really cost in its chain's native coin (docs/payouts.md "What a
-- payout costs"): the gas of every transaction of it that landed (gas used x effective gas price,
-- from the receipts the outbox stores in evm_transactions), in wei, set when it ends (completed, or
-- failed on chain: a reverted transaction is paid too). NULL on TRON (trx_burnt_sun keeps TRON's
-- cost in sun) and until an EVM payout ends. A native coin is never USDT: this is a cost of the
-- service, never a posting of the merchant ledger.
ALTER TABLE payouts ADD COLUMN IF NOT EXISTS gas_cost_wei numeric(78, 0);

-- EVM payouts that ended before this migration: their landed transactions' receipts are in the
-- outbox already. A payout's n-th submission has the ref `<id>` (n = 1) or `<id>:<n>`.
UPDATE payouts p SET gas_cost_wei = c.wei
FROM (
  SELECT p2.id, coalesce(sum(t.gas_used * t.effective_gas_price), 0) AS wei
  FROM payouts p2
  LEFT JOIN evm_transactions t
    ON t.chain = p2.chain AND t.purpose = 'payout'
   AND (t.ref = p2.id::text OR t.ref LIKE p2.id::text || ':%')
   AND t.state IN ('included', 'final') AND t.gas_used IS NOT NULL
  WHERE p2.chain <> 'tron' AND p2.status IN ('completed', 'failed') AND p2.tx_hash IS NOT NULL
  GROUP BY p2.id
) c
WHERE p.id = c.id;
