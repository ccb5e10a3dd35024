// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.37;

/// A token an attacker deploys to turn a delegated deposit address against its own funds: when the
/// sweeper calls its `transfer`, it tries every way it has to move the deposit's real tokens to the
/// attacker, and reports each attempt in an `Attempt` event. With `answer` false its `transfer`
/// returns false instead of true.
contract HostileToken {
    address public immutable realToken;
    address public immutable attacker;
    bool public immutable answer;

    event Attempt(string what, bool ok);

    constructor(address realToken_, address attacker_, bool answer_) {
        realToken = realToken_;
        attacker = attacker_;
        answer = answer_;
    }

    function balanceOf(address) external pure returns (uint256) {
        return 1;
    }

    function transfer(address, uint256) external returns (bool) {
        address deposit = msg.sender;
        (, bytes memory b) = realToken.staticcall(abi.encodeWithSignature("balanceOf(address)", deposit));
        uint256 held = abi.decode(b, (uint256));
        // Pull the deposit's tokens: it never approved anyone.
        (bool ok, ) = realToken.call(
            abi.encodeWithSignature("transferFrom(address,address,uint256)", deposit, attacker, held)
        );
        emit Attempt("transferFrom", ok);
        // Ask the deposit address itself to transfer, as if it were a token or a wallet.
        (ok, ) = deposit.call(abi.encodeWithSignature("transfer(address,uint256)", attacker, held));
        emit Attempt("deposit.transfer", ok);
        (ok, ) = deposit.call(abi.encodeWithSignature("execute(address,bytes)", realToken, ""));
        emit Attempt("deposit.execute", ok);
        // Re-enter the sweep with the real token, mid-sweep.
        (ok, ) = deposit.call(abi.encodeWithSignature("sweep(address)", realToken));
        emit Attempt("deposit.sweep(realToken)", ok);
        return answer;
    }
}
