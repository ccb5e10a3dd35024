// A broadcast java-tron refuses, with its return code and message; nothing reaches a block.

export type ReturnCode =
  | "SIGERROR"
  | "CONTRACT_VALIDATE_ERROR"
  | "CONTRACT_EXE_ERROR"
  | "BANDWITH_ERROR"
  | "DUP_TRANSACTION_ERROR"
  | "TAPOS_ERROR"
  | "TOO_BIG_TRANSACTION_ERROR"
  | "TRANSACTION_EXPIRATION_ERROR"
  | "OTHER_ERROR";

export class Refusal extends Error {
  /** The refused transaction's id, once it was parsed (java-tron prints it with the refusal). */
  txid?: string;
  constructor(
    readonly code: ReturnCode,
    message: string,
  ) {
    super(message);
  }
}

export const CONTRACT_VALIDATE_PREFIX = "Contract validate error : ";

/** An actuator's ContractValidateException, as broadcasttransaction reports it. */
export function validateError(message: string): Refusal {
  return new Refusal("CONTRACT_VALIDATE_ERROR", CONTRACT_VALIDATE_PREFIX + message);
}
