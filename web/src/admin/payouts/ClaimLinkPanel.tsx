import { useState } from "react";
import type { ClaimLink, PayoutDetail } from "../../api-types.js";
import { api } from "../api.js";
import { Ident } from "../ui/Ident.js";
import { OutcomeLine, useOutcome } from "../ui/Outcome.js";
import { When } from "../ui/When.js";

/**
 * A refund waiting for its payer's address: when its claim link expires, and a button that issues
 * a new link (the old one stops working), shown with a Copy button to give to the payer. The first
 * link cannot be shown again: only its fingerprint is stored.
 */
export function ClaimLinkPanel({ detail, onDone }: { detail: PayoutDetail; onDone: () => void }) {
  const { outcome, report } = useOutcome();
  const [issued, setIssued] = useState<ClaimLink | null>(null);
  const reissue = detail.actions.find((a) => a.action === "reissue_claim_link");
  if (detail.claim_expires_at === null || !reissue) return null;
  const expired = new Date(detail.claim_expires_at).getTime() <= Date.now();
  const issue = () =>
    report(async () => {
      const link = await api.post<ClaimLink>(`/payouts/${detail.payout.id}/claim-link`);
      setIssued(link);
      onDone();
      return null;
    }, "New claim link");
  return (
    <section className="panel wide" data-testid="claim-link">
      <h2>Claim link</h2>
      <p>
        The payer gives the address to refund on this link&apos;s page.{" "}
        {expired ? "It expired " : "It expires "}
        <When at={detail.claim_expires_at} />.
      </p>
      {issued ? (
        <>
          <p>
            New link, valid until <When at={issued.claim_expires_at} relative={false} />. Send it to the
            payer; the earlier link no longer works. It is shown only now.
          </p>
          <Ident value={issued.claim_url} testId="claim-url" />
        </>
      ) : reissue.allowed ? (
        <>
          <p className="muted">
            The link first given cannot be shown again. Issue a new one to copy and send it: the earlier link
            stops working and the new one is valid for 7 days.
          </p>
          <button type="button" data-testid="reissue-claim-link" onClick={() => void issue()}>
            {expired ? "Issue a new link" : "Issue a new link to copy"}
          </button>
        </>
      ) : (
        <p className="why-not">{reissue.reason}</p>
      )}
      <OutcomeLine outcome={outcome} />
    </section>
  );
}
