import type { MerchantWithKey } from "../../api-types.js";

/** A key or secret shown once, with the warning that it cannot be shown again. */
export function SecretOnce({ created, onClose }: { created: MerchantWithKey; onClose: () => void }) {
  return (
    <section className="panel notice" role="alert" data-testid="secret-once">
      <h2>API key of {created.name}</h2>
      <p>Copy it now: it is shown only once. Stablegate keeps only a hash of it.</p>
      <code className="mono block" data-testid="new-api-key">
        {created.api_key}
      </code>
      <button type="button" onClick={onClose}>
        Done
      </button>
    </section>
  );
}
