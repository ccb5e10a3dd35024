import type { Role } from "../../api-types.js";

const ROLES: readonly Role[] = ["owner", "admin", "support", "viewer"];

/** A choice of operator role (SPEC's permission table gives each its rights). */
export function RoleSelect({
  value,
  onChange,
  testId,
}: {
  value: Role;
  onChange: (role: Role) => void;
  testId: string;
}) {
  return (
    <select value={value} onChange={(event) => onChange(event.target.value as Role)} data-testid={testId}>
      {ROLES.map((r) => (
        <option key={r} value={r}>
          {r}
        </option>
      ))}
    </select>
  );
}
