import { useEffect, useState } from "react";
import type { Me } from "../api-types.js";
import { AcceptInvitation } from "./AcceptInvitation.js";
import { api, setUnauthorizedHandler } from "./api.js";
import { Login } from "./Login.js";
import { MeContext } from "./me.js";
import { Shell } from "./Shell.js";

type Session = { state: "checking" } | { state: "in"; me: Me } | { state: "out" };

/** The operator dashboard at /admin: the admin API behind its cookie session. */
export function AdminApp() {
  const [session, setSession] = useState<Session>({ state: "checking" });
  const refresh = () =>
    api
      .get<Me>("/me")
      .then((me) => setSession({ state: "in", me }))
      .catch(() => setSession({ state: "out" }));
  useEffect(() => {
    setUnauthorizedHandler(() => setSession({ state: "out" }));
    void refresh();
  }, []);
  useEffect(() => {
    document.title = "Stablegate admin";
  }, []);

  if (session.state === "checking") return <p className="admin-loading">Loading…</p>;
  if (session.state === "out") {
    if (window.location.pathname === "/admin/invitation") return <AcceptInvitation />;
    return <Login onIn={() => void refresh()} />;
  }
  return (
    <MeContext.Provider value={session.me}>
      <Shell onOut={() => setSession({ state: "out" })} onChanged={() => void refresh()} />
    </MeContext.Provider>
  );
}
