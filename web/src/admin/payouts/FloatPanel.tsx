import type { PayoutFloat } from "../../api-types.js";
import { useQrCode } from "../../qr.js";
import { api } from "../api.js";
import { CHAIN_LABELS, formatUsdt } from "../format.js";
import { Ident } from "../ui/Ident.js";
import { useApi } from "../useApi.js";

type FloatEntry = PayoutFloat["floats"][number];

const labelOf = (chain: string) => CHAIN_LABELS[chain as keyof typeof CHAIN_LABELS];
const chainName = (chain: string) => labelOf(chain)?.name ?? chain;

/** "5.000000 USDT (1)", or "None". */
const countOf = (c: { count: number; amount: string }, unit: string) =>
  c.count === 0 && c.amount === "0.000000" ? "None" : `${formatUsdt(c.amount, unit)} (${c.count})`;

/** One chain's float in one token: what new payouts can take, what is in flight, low or not. */
function FloatCard({ f }: { f: FloatEntry }) {
  const id = `float-${f.chain}-${f.currency}`;
  const standard = labelOf(f.chain)?.tokenStandard;
  return (
    <article
      className={`float-card${f.is_low ? " low" : ""}`}
      data-testid={id}
      aria-labelledby={`${id}-title`}
    >
      <div className="float-card-head">
        <h3 id={`${id}-title`}>
          {chainName(f.chain)} · {f.currency}
          {standard ? <span className="muted float-standard">{standard}</span> : null}
        </h3>
        {f.is_low ? (
          <span className="badge bad" data-testid={`${id}-low-badge`}>
            Low
          </span>
        ) : f.error ? (
          <span className="badge warn">Not current</span>
        ) : null}
      </div>
      <p className="big" data-testid={`${id}-available`}>
        {f.available === null ? "—" : formatUsdt(f.available, f.currency)}
      </p>
      <p className="muted float-caption">{f.error ? "balance unavailable" : "available for payouts"}</p>
      {f.error && (
        <p className="error" data-testid={`${id}-error`}>
          {f.error}
        </p>
      )}
      {f.is_low && (
        <p className="error" data-testid={`${id}-low`}>
          {f.shortfall === "0.000000"
            ? "Payouts are waiting for a top-up"
            : `${formatUsdt(f.shortfall, f.currency)} short for ${f.approved.count} approved ${
                f.approved.count === 1 ? "payout" : "payouts"
              }`}
          {f.waiting_for_float > 0 ? ` (${f.waiting_for_float} waiting)` : ""}.
        </p>
      )}
      <dl>
        <dt>Balance</dt>
        <dd data-testid={`${id}-balance`}>{f.balance === null ? "—" : formatUsdt(f.balance, f.currency)}</dd>
        <dt>In flight</dt>
        <dd data-testid={`${id}-in-flight`}>{countOf(f.in_flight, f.currency)}</dd>
        <dt>Approved, to send</dt>
        <dd data-testid={`${id}-approved`}>{countOf(f.approved, f.currency)}</dd>
        <dt>Pending approval</dt>
        <dd>{countOf(f.pending_approval, f.currency)}</dd>
      </dl>
    </article>
  );
}

/** Where each chain family's hot wallet is topped up: TRON's with its QR, the EVM one once. */
function TopUp({ f }: { f: PayoutFloat }) {
  const qr = useQrCode(f.address);
  const evm = f.floats.find((e) => e.chain !== "tron" && e.address !== null)?.address ?? null;
  const evmChains = [...new Set(f.floats.filter((e) => e.chain !== "tron").map((e) => chainName(e.chain)))];
  if (!f.address && !evm) return null;
  return (
    <div className="float-topup">
      {f.address && (
        <div>
          <span className="field-label">Top-up address, TRON (USDT TRC20 and TRX for fees)</span>
          <code className="mono block" data-testid="float-address">
            {f.address}
          </code>
          {f.trx_balance !== null && (
            <p className="muted" data-testid="float-trx">
              Holds {formatUsdt(f.trx_balance, "TRX")}
            </p>
          )}
          {qr && (
            <img
              src={qr}
              alt="QR code of the TRON hot wallet's address"
              data-testid="float-qr"
              width={140}
              height={140}
            />
          )}
        </div>
      )}
      {evm && (
        <div>
          <span className="field-label">
            Top-up address, {evmChains.join(", ")} (tokens, and the gas coin for fees)
          </span>
          <p>
            <Ident value={evm} testId="float-evm-address" />
          </p>
        </div>
      )}
    </div>
  );
}

/** The hot wallet's float per chain and token, the low warnings, and where to top up. */
export function FloatPanel({ round }: { round: number }) {
  const float = useApi(() => api.get<PayoutFloat>("/payouts/float"), `float-${round}`);
  if (float.state === "loading") return <section className="panel">Loading the float…</section>;
  if (float.state === "error") return <p className="error">{float.message}</p>;
  const f = float.data;
  const low = f.floats.filter((e) => e.is_low);
  return (
    <section className="panel float" data-testid="float" aria-labelledby="float-title">
      <h2 id="float-title">Hot wallet float</h2>
      {low.length > 0 && (
        <p className="error" role="alert" data-testid="float-low">
          The float is too small on {low.map((e) => `${chainName(e.chain)} ${e.currency}`).join(", ")}:
          approved payouts wait until the hot wallet is topped up.
        </p>
      )}
      <div className="float-grid">
        {f.floats.map((e) => (
          <FloatCard key={`${e.chain}-${e.currency}`} f={e} />
        ))}
      </div>
      <TopUp f={f} />
    </section>
  );
}
