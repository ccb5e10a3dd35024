// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.37;

/// A devnet copy of the behaviour of Ethereum's USDT (TetherToken at
/// 0xdAC17F958D2ee523a2206206994597C13D831ec7), in today's Solidity: 6 decimals; `transfer`,
/// `transferFrom` and `approve` return nothing; failed checks revert without a reason, as the
/// original's bare `require`s do; the owner keeps a blacklist of senders (a blacklisted address
/// cannot send, but can still receive), can pause transfers, and can charge a fee through
/// `setParams` (at most 20 basis points and 50 whole tokens), paid to the owner in a second
/// Transfer event. A non-zero allowance must be set to zero before it is changed, and an allowance
/// of 2**256-1 is never spent.
contract TetherToken {
    string public name = "Tether USD";
    string public symbol = "USDT";
    uint256 public decimals = 6;
    uint256 public _totalSupply;
    address public owner;
    bool public paused;
    uint256 public basisPointsRate;
    uint256 public maximumFee;
    uint256 public constant MAX_UINT = type(uint256).max;

    mapping(address => uint256) public balances;
    mapping(address => mapping(address => uint256)) public allowed;
    mapping(address => bool) public isBlackListed;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);
    event Issue(uint256 amount);
    event Redeem(uint256 amount);
    event Params(uint256 feeBasisPoints, uint256 maxFee);
    event Pause();
    event Unpause();
    event AddedBlackList(address _user);
    event RemovedBlackList(address _user);
    event DestroyedBlackFunds(address _blackListedUser, uint256 _balance);
    event OwnershipTransferred(address indexed previousOwner, address indexed newOwner);

    modifier onlyOwner() {
        require(msg.sender == owner);
        _;
    }

    modifier whenNotPaused() {
        require(!paused);
        _;
    }

    constructor(uint256 initialSupply) {
        owner = msg.sender;
        _totalSupply = initialSupply;
        balances[msg.sender] = initialSupply;
    }

    function totalSupply() public view returns (uint256) {
        return _totalSupply;
    }

    function balanceOf(address who) public view returns (uint256) {
        return balances[who];
    }

    function allowance(address holder, address spender) public view returns (uint256 remaining) {
        return allowed[holder][spender];
    }

    function transfer(address to, uint256 value) public whenNotPaused {
        require(!isBlackListed[msg.sender]);
        uint256 fee = _fee(value);
        uint256 sendAmount = value - fee;
        balances[msg.sender] -= value;
        balances[to] += sendAmount;
        if (fee > 0) {
            balances[owner] += fee;
            emit Transfer(msg.sender, owner, fee);
        }
        emit Transfer(msg.sender, to, sendAmount);
    }

    function transferFrom(address from, address to, uint256 value) public whenNotPaused {
        require(!isBlackListed[from]);
        uint256 allowance_ = allowed[from][msg.sender];
        uint256 fee = _fee(value);
        if (allowance_ < MAX_UINT) allowed[from][msg.sender] = allowance_ - value;
        uint256 sendAmount = value - fee;
        balances[from] -= value;
        balances[to] += sendAmount;
        if (fee > 0) {
            balances[owner] += fee;
            emit Transfer(from, owner, fee);
        }
        emit Transfer(from, to, sendAmount);
    }

    function approve(address spender, uint256 value) public {
        require(!((value != 0) && (allowed[msg.sender][spender] != 0)));
        allowed[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
    }

    function _fee(uint256 value) private view returns (uint256 fee) {
        fee = (value * basisPointsRate) / 10000;
        if (fee > maximumFee) fee = maximumFee;
    }

    function setParams(uint256 newBasisPoints, uint256 newMaxFee) public onlyOwner {
        require(newBasisPoints < 20);
        require(newMaxFee < 50);
        basisPointsRate = newBasisPoints;
        maximumFee = newMaxFee * (10 ** decimals);
        emit Params(basisPointsRate, maximumFee);
    }

    function issue(uint256 amount) public onlyOwner {
        balances[owner] += amount;
        _totalSupply += amount;
        emit Issue(amount);
    }

    function redeem(uint256 amount) public onlyOwner {
        require(_totalSupply >= amount);
        require(balances[owner] >= amount);
        _totalSupply -= amount;
        balances[owner] -= amount;
        emit Redeem(amount);
    }

    function pause() public onlyOwner {
        paused = true;
        emit Pause();
    }

    function unpause() public onlyOwner {
        paused = false;
        emit Unpause();
    }

    function getBlackListStatus(address maker) external view returns (bool) {
        return isBlackListed[maker];
    }

    function addBlackList(address evilUser) public onlyOwner {
        isBlackListed[evilUser] = true;
        emit AddedBlackList(evilUser);
    }

    function removeBlackList(address clearedUser) public onlyOwner {
        isBlackListed[clearedUser] = false;
        emit RemovedBlackList(clearedUser);
    }

    function destroyBlackFunds(address blackListedUser) public onlyOwner {
        require(isBlackListed[blackListedUser]);
        uint256 dirtyFunds = balances[blackListedUser];
        balances[blackListedUser] = 0;
        _totalSupply -= dirtyFunds;
        emit DestroyedBlackFunds(blackListedUser, dirtyFunds);
    }

    function transferOwnership(address newOwner) public onlyOwner {
        if (newOwner != address(0)) {
            emit OwnershipTransferred(owner, newOwner);
            owner = newOwner;
        }
    }
}
