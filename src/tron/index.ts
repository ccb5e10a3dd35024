// The public surface of the TRON toolkit. It imports nothing from the rest of Stablegate.
export * from "./address.js";
export * from "./sign.js";
export * from "./protobuf.js";
export * from "./transaction.js";
export * from "./hd.js";
export * from "./abi.js";
export * from "./node-types.js";
export * from "./node-errors.js";
export * from "./node-client.js";
export { privateKeyToBytes } from "./keys.js";
export { bytesToHex, hexToBytes, strip0x } from "./bytes.js";
