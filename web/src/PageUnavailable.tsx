/**
 * A public page (checkout, refund claim) without its record to show: still loading, a link that
 * leads nowhere, or no answer from the service (the page keeps retrying).
 */
export function PageUnavailable({
  kind,
  noun,
  issuer,
}: {
  kind: "loading" | "not_found" | "ok" | "error";
  /** "Payment", "Refund" */
  noun: string;
  /** who gives a new link: "the shop", "the merchant" */
  issuer: string;
}) {
  if (kind === "loading") {
    return (
      <main className="card" aria-busy="true">
        <p className="muted">Loading {noun.toLowerCase()}…</p>
      </main>
    );
  }
  if (kind === "not_found") {
    return (
      <main className="card">
        <h1 data-testid="headline">{noun} not found</h1>
        <p className="muted">Check the link you were given, or ask {issuer} for a new one.</p>
      </main>
    );
  }
  return (
    <main className="card">
      <h1 data-testid="headline">Cannot reach the payment service</h1>
      <p className="muted">Retrying…</p>
    </main>
  );
}
