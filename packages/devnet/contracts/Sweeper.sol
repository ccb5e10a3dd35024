// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.37;

/// The code a Stablegate deposit address delegates to with EIP-7702, so that one transaction from
/// the hot wallet moves the address's whole balance of a token to the cold wallet, with no gas ever
/// sent to the address.
///
/// What must stay true (docs/evm-sweeps.md says why each matters):
/// - The only thing it does is `token.transfer(COLD_WALLET, token.balanceOf(this))`. The destination
///   is in the code (an immutable set at deployment, one deployment per chain and cold wallet), so
///   anyone may call it: there is nothing to redirect.
/// - No storage: nothing read or written in the delegating account's slots, so no later delegation
///   finds anything of ours there, and nothing an earlier delegation left changes what this does.
///   No initialiser either, so there is nothing to front-run after a delegation.
/// - Not payable, no `receive` or `fallback`: every call carrying ETH or naming another function
///   reverts, so a delegated address neither takes nor holds ETH through this code.
/// - A token whose `transfer` returns nothing (Ethereum's USDT) is called without expecting a bool;
///   a `false` reply or a revert reverts the sweep.
contract Sweeper {
    /// The only place tokens go. Immutable: it lives in the code, not in the delegator's storage.
    address public immutable COLD_WALLET;

    error ZeroColdWallet();
    error NothingToSweep();
    error TransferFailed();

    constructor(address coldWallet) {
        if (coldWallet == address(0)) revert ZeroColdWallet();
        COLD_WALLET = coldWallet;
    }

    /// Moves this account's whole balance of `token` to COLD_WALLET and returns the amount.
    function sweep(address token) external returns (uint256 amount) {
        amount = IBalanceOf(token).balanceOf(address(this));
        if (amount == 0) revert NothingToSweep();
        (bool ok, bytes memory ret) = token.call(abi.encodeWithSelector(0xa9059cbb, COLD_WALLET, amount));
        if (!ok || (ret.length != 0 && !abi.decode(ret, (bool)))) revert TransferFailed();
    }
}

interface IBalanceOf {
    function balanceOf(address who) external view returns (uint256);
}
