// @stablegate/tron: every module of the toolkit. Subpaths (@stablegate/tron/address, ...) load one module alone.
export * from "./abi.js";
export * from "./address.js";
export * from "./bytes.js";
export * from "./hash.js";
export * from "./hd.js";
export * from "./keys.js";
export * from "./node-client.js";
export * from "./node-errors.js";
export * from "./node-parse.js";
export * from "./node-types.js";
export * from "./protobuf-read.js";
export * from "./protobuf-types.js";
export * from "./protobuf.js";
export * from "./sign.js";
export * from "./transaction.js";
