import type { Role } from "../../api-types.js";
import { roleLabel } from "../labels.js";

const ROLES: readonly Role[] = ["owner", "admin", "support", "viewer"];

/** A choice of operator role; docs/operators.md lists each role's rights. */
export function RoleSelect({
  value,
  onChange,
  testId,
  label = "Role",
}: {
  label?: string;
  value: Role;
  onChange: (role: Role) => void;
  testId: string;
}) {
  return (
    <select
      value={value}
      onChange={(event) => onChange(event.target.value as Role)}
      data-testid={testId}
      aria-label={label}
    >
      {ROLES.map((r) => (
        <option key={r} value={r}>
          {roleLabel(r)}
        </option>
      ))}
    </select>
  );
}
