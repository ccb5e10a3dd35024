import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { CheckoutPage } from "./checkout/CheckoutPage.js";
import "./styles.css";

const root = document.getElementById("root");
const match = /^\/checkout\/([^/]+)\/?$/.exec(window.location.pathname);

if (root) {
  createRoot(root).render(
    <StrictMode>
      {match ? (
        <CheckoutPage orderId={decodeURIComponent(match[1] ?? "")} />
      ) : (
        <main className="card">
          <h1>Page not found</h1>
        </main>
      )}
    </StrictMode>,
  );
}
