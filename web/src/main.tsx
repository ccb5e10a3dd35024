import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { AdminApp } from "./admin/AdminApp.js";
import { CheckoutPage } from "./checkout/CheckoutPage.js";
import { RefundClaimPage } from "./refund/RefundClaimPage.js";
import "./styles.css";
import "./design/console.css";

const root = document.getElementById("root");
const match = /^\/checkout\/([^/]+)\/?$/.exec(window.location.pathname);
const refund = /^\/refund\/([^/]+)\/?$/.exec(window.location.pathname);
const admin = /^\/admin(\/|$)/.test(window.location.pathname);

if (root) {
  createRoot(root).render(
    <StrictMode>
      {admin ? (
        <AdminApp />
      ) : match ? (
        <CheckoutPage orderId={decodeURIComponent(match[1] ?? "")} />
      ) : refund ? (
        <RefundClaimPage token={decodeURIComponent(refund[1] ?? "")} />
      ) : (
        <main className="card">
          <h1>Page not found</h1>
        </main>
      )}
    </StrictMode>,
  );
}
