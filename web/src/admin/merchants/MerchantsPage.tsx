import { useState } from "react";
import type { MerchantList, MerchantWithKey } from "../../api-types.js";
import { api } from "../api.js";
import { formatTime } from "../format.js";
import { useCan, useMe } from "../me.js";
import { askStepUp } from "../passkeys.js";
import { Link } from "../router.js";
import { ErrorAlert } from "../ui/ErrorAlert.js";
import { useAction, useApi } from "../useApi.js";
import { CreateMerchant } from "./CreateMerchant.js";
import { MerchantStatusBadge } from "./MerchantStatusBadge.js";
import { SecretOnce } from "./SecretOnce.js";

/** The merchants: create one, suspend or activate, rotate an API key (its new key shown once). */
export function MerchantsPage() {
  const merchants = useApi(() => api.get<MerchantList>("/merchants"), "merchants");
  const me = useMe();
  const can = useCan();
  const [shown, setShown] = useState<MerchantWithKey | null>(null);
  const action = useAction(merchants.reload);

  return (
    <>
      <h1>Merchants</h1>
      {shown && <SecretOnce created={shown} onClose={() => setShown(null)} />}
      {can("merchants.create") && (
        <CreateMerchant
          onCreated={(created) => {
            setShown(created);
            merchants.reload();
          }}
        />
      )}
      <ErrorAlert error={action.error} testId="merchant-action-error" />
      {merchants.state === "loading" && <p>Loading…</p>}
      {merchants.state === "error" && <p className="error">{merchants.message}</p>}
      {merchants.state === "ok" && (
        <div className="table-scroll" tabIndex={0}>
          <table data-testid="merchants">
            <thead>
              <tr>
                <th>Name</th>
                <th>API key</th>
                <th>Status</th>
                <th>Orders</th>
                <th>Created</th>
                <th>
                  <span className="offscreen">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {merchants.data.data.map((m) => (
                <tr key={m.id} data-testid={`merchant-${m.name}`}>
                  <td>
                    <Link to={`/admin/merchants/${m.id}`} testId="merchant-link">
                      {m.name}
                    </Link>{" "}
                    <Link to={`/admin/orders?merchant_id=${m.id}`}>(orders)</Link>
                  </td>
                  <td className="mono" data-verbatim>
                    {m.api_key_prefix}…
                  </td>
                  <td>
                    <MerchantStatusBadge active={m.is_active} />
                  </td>
                  <td>{m.order_count}</td>
                  <td>{formatTime(m.created_at)}</td>
                  <td className="actions">
                    {can("merchants.update") && (
                      <button
                        type="button"
                        data-testid="toggle-active"
                        onClick={() =>
                          void action.run(() => api.put(`/merchants/${m.id}`, { is_active: !m.is_active }))
                        }
                      >
                        {m.is_active ? "Suspend" : "Activate"}
                      </button>
                    )}
                    {can("merchants.rotate_key") && (
                      <button
                        type="button"
                        data-testid="rotate-key"
                        onClick={() => {
                          if (
                            !window.confirm(
                              `Rotate the API key of ${m.name}? The current key stops working at once.`,
                            )
                          )
                            return;
                          void action.run(async () => {
                            const factor = await askStepUp(me, "Rotate the API key");
                            if (factor === undefined) return;
                            setShown(
                              await api.post<MerchantWithKey>(
                                `/merchants/${m.id}/rotate-api-key`,
                                Object.keys(factor).length > 0 ? factor : undefined,
                              ),
                            );
                          });
                        }}
                      >
                        Rotate key
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
