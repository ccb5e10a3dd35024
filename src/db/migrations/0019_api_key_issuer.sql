-- Four-eyes through a merchant key (DESIGN.md 14): who was shown each merchant's current API key.
-- merchants.api_key_issued_by: the operator who created or last rotated the key (its id as in
-- audit_log.actor_id); NULL when the merchant rotated it itself or the system created it.
-- payouts.api_key_issued_by: the issuer of the key a refund or payout was created with, copied at
-- creation; that operator never approves it.
ALTER TABLE merchants ADD COLUMN api_key_issued_by text;
ALTER TABLE payouts ADD COLUMN api_key_issued_by text;
UPDATE merchants m SET api_key_issued_by = (
  SELECT a.actor_id FROM audit_log a
  WHERE a.target_type = 'merchant' AND a.target_id = m.id::text
    AND a.action IN ('merchant.create', 'merchant.rotate_key')
  ORDER BY a.seq DESC LIMIT 1
) WHERE EXISTS (
  SELECT 1 FROM audit_log a
  WHERE a.target_type = 'merchant' AND a.target_id = m.id::text
    AND a.action IN ('merchant.create', 'merchant.rotate_key') AND a.actor_kind = 'operator'
);
