import { useEffect, useState, type ReactNode } from "react";
import { api } from "./api.js";
import { AuditPage } from "./audit/AuditPage.js";
import { DepositAddressDetailPage } from "./deposits/DepositAddressDetailPage.js";
import { DepositAddressesPage } from "./deposits/DepositAddressesPage.js";
import { useMe } from "./me.js";
import { MerchantDetailPage } from "./merchants/MerchantDetailPage.js";
import { MerchantsPage } from "./merchants/MerchantsPage.js";
import { OperatorsPage } from "./operators/OperatorsPage.js";
import { OrderDetailPage } from "./orders/OrderDetailPage.js";
import { OrdersPage } from "./orders/OrdersPage.js";
import { OverviewPage } from "./overview/OverviewPage.js";
import { PayoutDetailPage } from "./payouts/PayoutDetailPage.js";
import { PayoutsPage } from "./payouts/PayoutsPage.js";
import { roleLabel } from "./labels.js";
import { Link, useLocation } from "./router.js";
import { SecurityPage } from "./security/SecurityPage.js";
import { StrayTransferPage } from "./strays/StrayTransferPage.js";
import { StrayTransfersPage } from "./strays/StrayTransfersPage.js";
import { WalletPage } from "./wallet/WalletPage.js";

const NAV = [
  { to: "/admin", label: "Overview", permission: "stats.read" },
  { to: "/admin/orders", label: "Orders", permission: "orders.read" },
  { to: "/admin/merchants", label: "Merchants", permission: "merchants.read" },
  { to: "/admin/payouts", label: "Payouts", permission: "payouts.read" },
  { to: "/admin/deposit-addresses", label: "Deposit addresses", permission: "deposit_addresses.read" },
  { to: "/admin/wallet", label: "Wallet", permission: "wallet.read" },
  { to: "/admin/operators", label: "Operators", permission: "operators.read" },
  { to: "/admin/audit", label: "Audit", permission: "audit.read" },
  { to: "/admin/security", label: "Security", permission: "account.self" },
  { to: "/admin/stray-transfers", label: "Strays", permission: "strays.read" },
];

/** The page of an /admin path; `onChanged` reloads the signed-in operator (after a 2FA change). */
function pageOf(path: string, query: URLSearchParams, onChanged: () => void): ReactNode {
  const id = (pattern: RegExp) => {
    const match = pattern.exec(path);
    return match ? decodeURIComponent(match[1] ?? "") : null;
  };
  const depositId = id(/^\/admin\/deposit-addresses\/([^/]+)$/);
  if (depositId !== null) return <DepositAddressDetailPage id={depositId} />;
  if (path === "/admin/deposit-addresses") return <DepositAddressesPage query={query} />;
  const orderId = id(/^\/admin\/orders\/([^/]+)$/);
  if (orderId !== null) return <OrderDetailPage id={orderId} />;
  const strayId = id(/^\/admin\/stray-transfers\/([^/]+)$/);
  if (strayId !== null) return <StrayTransferPage id={strayId} />;
  if (path === "/admin/stray-transfers") return <StrayTransfersPage />;
  if (path === "/admin/orders") return <OrdersPage query={query} />;
  if (path === "/admin/merchants") return <MerchantsPage />;
  const merchantId = id(/^\/admin\/merchants\/([^/]+)$/);
  if (merchantId !== null) return <MerchantDetailPage id={merchantId} />;
  if (path === "/admin/payouts") return <PayoutsPage query={query} />;
  const payoutId = id(/^\/admin\/payouts\/([^/]+)$/);
  if (payoutId !== null) return <PayoutDetailPage id={payoutId} />;
  if (path === "/admin/wallet") return <WalletPage />;
  if (path === "/admin/operators") return <OperatorsPage />;
  if (path === "/admin/audit") return <AuditPage />;
  if (path === "/admin/security") return <SecurityPage onChanged={onChanged} />;
  if (path === "/admin" || path === "/admin/") return <OverviewPage />;
  return <h1>Page not found</h1>;
}

/** The signed-in dashboard: the navigation (what the role may read) and the page of the path. */
export function Shell({ onOut, onChanged }: { onOut: () => void; onChanged: () => void }) {
  const me = useMe();
  const location = useLocation();
  // Under ADMIN_REQUIRE_2FA an operator without TOTP can use only the Security page.
  const path = me.totp_required ? "/admin/security" : location.path;
  const logout = async () => {
    await api.post("/auth/logout").catch(() => undefined);
    onOut();
  };
  // Below 960 px the navigation is a drawer behind the Menu button; it closes on every navigation.
  const [open, setOpen] = useState(false);
  useEffect(() => setOpen(false), [location.path, location.query]);
  return (
    <div className="admin">
      <header className="topbar">
        <button
          type="button"
          aria-expanded={open}
          aria-controls="admin-nav"
          onClick={() => setOpen(!open)}
          data-testid="menu"
        >
          {open ? "Close" : "Menu"}
        </button>
        <span className="brand">Stablegate</span>
      </header>
      <nav id="admin-nav" className={open ? "sidenav open" : "sidenav"} aria-label="Console">
        <span className="brand">Stablegate</span>
        {NAV.filter(
          (item) =>
            me.permissions.includes(item.permission) &&
            (!me.totp_required || item.permission === "account.self"),
        ).map((item) => (
          <span key={item.to} className={path === item.to ? "active" : undefined}>
            <Link to={item.to} testId={`nav-${item.label.toLowerCase().replace(/ /g, "-")}`}>
              {item.label}
            </Link>
          </span>
        ))}
        <div className="sidenav-footer">
          <span className="who" data-testid="who">
            {me.email === null ? "Owner" : `${me.email} · ${roleLabel(me.role)}`}
          </span>
          <button type="button" onClick={() => void logout()} data-testid="logout">
            Log out
          </button>
        </div>
      </nav>
      <main className="admin-main">{pageOf(path, location.query, onChanged)}</main>
    </div>
  );
}
