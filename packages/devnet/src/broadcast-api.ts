// broadcasttransaction and broadcasthex: java-tron's reply shapes around Chain.broadcast.
import { decodeRawData, type RawDataJson } from "@stablegate/tron/protobuf";
import { javaError, returnMessage, type Ctx, type Handler, type Params } from "./api-util.js";
import { Refusal } from "./refusal.js";
import { bytesToHex, hexToBytes, sha256Hex, toJson } from "./util.js";

/**
 * broadcasttransaction's reply as java-tron prints it: {"result": true, "txid"} on success; on a refusal
 * the Return message without its false `result` (JsonFormat omits defaults), plus the txid.
 */
function broadcastReply(
  ctx: Ctx,
  body: Params,
): { ok: boolean; reply: Record<string, unknown>; id?: string } {
  try {
    const tx = ctx.chain.broadcast(body);
    return { ok: true, reply: { result: true, txid: tx.id }, id: tx.id };
  } catch (e) {
    if (!(e instanceof Refusal)) throw e;
    const reply: Record<string, unknown> = { code: e.code };
    const txid = e.txid ?? (typeof body.txID === "string" ? body.txID : undefined);
    if (txid) reply.txid = txid;
    reply.message = returnMessage(e.message, ctx.visible);
    return { ok: false, reply };
  }
}

export const broadcastTransaction: Handler = (p, ctx) => {
  if (!p.raw_data) return javaError("java.lang.NullPointerException", "raw_data is missing");
  return broadcastReply(ctx, p).reply;
};

/** Transaction protobuf: raw_data = field 1, signature = repeated field 2. */
function decodeTransactionHex(hex: string): { rawHex: string; signatures: string[] } {
  const buf = hexToBytes(hex);
  let pos = 0;
  const varint = (): number => {
    let r = 0;
    let mul = 1;
    for (;;) {
      if (pos >= buf.length) throw new Error("truncated transaction");
      const b = buf[pos++] as number;
      r += (b & 0x7f) * mul;
      if ((b & 0x80) === 0) return r;
      mul *= 128;
    }
  };
  let rawHex = "";
  const signatures: string[] = [];
  while (pos < buf.length) {
    const key = varint();
    const wire = key & 7;
    if (wire === 0) {
      varint();
      continue;
    }
    if (wire !== 2) throw new Error("unsupported wire type");
    const len = varint();
    const bytes = buf.subarray(pos, pos + len);
    pos += len;
    if (key >>> 3 === 1) rawHex = bytesToHex(bytes);
    else if (key >>> 3 === 2) signatures.push(bytesToHex(bytes));
  }
  return { rawHex, signatures };
}

export const broadcastHex: Handler = (p, ctx) => {
  let decoded: { rawHex: string; signatures: string[] };
  let raw: RawDataJson;
  try {
    decoded = decodeTransactionHex(String(p.transaction ?? ""));
    raw = decodeRawData(hexToBytes(decoded.rawHex));
  } catch (e) {
    return javaError("com.google.protobuf.InvalidProtocolBufferException", (e as Error).message);
  }
  const body = { raw_data: raw, raw_data_hex: decoded.rawHex, signature: decoded.signatures };
  const { ok, reply, id } = broadcastReply({ ...ctx, visible: true }, body);
  const txid = id ?? sha256Hex(hexToBytes(decoded.rawHex));
  const printed = toJson({
    signature: decoded.signatures,
    txID: txid,
    raw_data: raw,
    raw_data_hex: decoded.rawHex,
  });
  return {
    result: ok,
    code: ok ? "SUCCESS" : reply.code,
    message: ok ? "" : reply.message,
    transaction: printed,
    txid,
  };
};
