import QRCode from "qrcode";
import { useEffect, useState } from "react";

/** A QR code of `text` as an SVG data URL (the same library as the checkout page and TOTP enrolment). */
export function useQrCode(text: string | null): string | null {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    if (text === null) return;
    let cancelled = false;
    QRCode.toString(text, { type: "svg", margin: 1, errorCorrectionLevel: "M" })
      .then((svg) => {
        if (!cancelled) setUrl(`data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`);
      })
      .catch(() => undefined);
    return () => {
      cancelled = true;
    };
  }, [text]);
  return text === null ? null : url;
}
