import type { InputHTMLAttributes, ReactNode } from "react";

type InputProps = Omit<InputHTMLAttributes<HTMLInputElement>, "value" | "onChange">;

/** A labelled text input: the label's text, then the input, inside one <label>. */
export function Field({
  label,
  value,
  onChange,
  testId,
  ...input
}: InputProps & { label: ReactNode; value: string; onChange: (value: string) => void; testId?: string }) {
  return (
    <label>
      {label}
      <input
        value={value}
        onChange={(event) => onChange(event.target.value)}
        data-testid={testId}
        {...input}
      />
    </label>
  );
}
