/**
 * A record's fields as a name/value list: nested objects and arrays are left out (their own
 * sections show them), an empty value shows "—", hashes and addresses are monospaced.
 */
export function FieldList({
  fields,
  testId,
  valueTestIds = false,
}: {
  fields: Record<string, unknown>;
  testId?: string;
  /** Marks each value `field-<name>` (for pages whose tests read single fields). */
  valueTestIds?: boolean;
}) {
  return (
    <dl className="fields" data-testid={testId}>
      {Object.entries(fields)
        .filter(([, value]) => typeof value !== "object" || value === null)
        .map(([name, value]) => (
          <div key={name}>
            <dt>{name}</dt>
            <dd
              className={name.endsWith("hash") || name.endsWith("address") ? "mono" : undefined}
              data-testid={valueTestIds ? `field-${name}` : undefined}
            >
              {value === null || value === undefined || value === "" ? "—" : String(value)}
            </dd>
          </div>
        ))}
    </dl>
  );
}
