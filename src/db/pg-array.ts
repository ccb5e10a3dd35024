/**
 * A PostgreSQL array literal (every element quoted; null as NULL), passed as one text parameter and
 * cast in SQL (`${pgArray(ids)}::uuid[]`): a batch of any size is one parameter, and an empty
 * string stays one element (string_to_array('', ',') would give none).
 */
export function pgArray(values: readonly (string | null)[]): string {
  const items = values.map((v) => (v === null ? "NULL" : `"${v.replace(/[\\"]/g, (c) => `\\${c}`)}"`));
  return `{${items.join(",")}}`;
}
