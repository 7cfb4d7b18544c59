// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

// Test contracts that answer what real tokens written by strangers answer: the ingest must index
// them without halting and store bounded values (issue 24). They avoid memory-to-memory copies so
// that their code also runs on a pre-Cancun chain (no MCOPY), where self-destruct still deletes code.

/// @title HostileToken
/// @notice An ERC-20 whose name(), symbol(), decimals() and totalSupply() answer whatever was set,
///         byte for byte: raw return data, a revert, or an ABI string of `length` letters 'A'
///         generated on the fly (a 500 KB name costs no storage), or a loop until out of gas
///         (`setBurnGas`). A selector never set reverts without data. Anyone can mint and change the answers (a token that renames itself).
contract HostileToken {
    event Transfer(address indexed from, address indexed to, uint256 value);

    uint8 private constant RETURN_RAW = 1;
    uint8 private constant REVERT_RAW = 2;
    uint8 private constant LONG_STRING = 3;
    uint8 private constant BURN_GAS = 4;

    mapping(bytes4 => uint8) public answerKind;
    mapping(bytes4 => bytes) public rawAnswer;
    mapping(bytes4 => uint256) public stringLength;
    mapping(address => uint256) public balanceOf;

    function setAnswer(bytes4 selector, bytes calldata answer) external {
        answerKind[selector] = RETURN_RAW;
        rawAnswer[selector] = answer;
    }

    function setRevert(bytes4 selector, bytes calldata data) external {
        answerKind[selector] = REVERT_RAW;
        rawAnswer[selector] = data;
    }

    function setLongString(bytes4 selector, uint256 length) external {
        answerKind[selector] = LONG_STRING;
        stringLength[selector] = length;
    }

    /// @notice The selector loops until it runs out of gas (see GasBurnerToken).
    function setBurnGas(bytes4 selector) external {
        answerKind[selector] = BURN_GAS;
    }

    function mint(address to, uint256 amount) external {
        balanceOf[to] += amount;
        emit Transfer(address(0), to, amount);
    }

    function transfer(address to, uint256 amount) external returns (bool) {
        balanceOf[msg.sender] -= amount;
        balanceOf[to] += amount;
        emit Transfer(msg.sender, to, amount);
        return true;
    }

    fallback() external {
        uint8 kind = answerKind[msg.sig];
        if (kind == RETURN_RAW || kind == REVERT_RAW) {
            bytes memory data = rawAnswer[msg.sig];
            if (kind == RETURN_RAW) {
                assembly {
                    return(add(data, 0x20), mload(data))
                }
            }
            assembly {
                revert(add(data, 0x20), mload(data))
            }
        }
        if (kind == LONG_STRING) {
            uint256 length = stringLength[msg.sig];
            assembly {
                let start := mload(0x40)
                mstore(start, 0x20)
                mstore(add(start, 0x20), length)
                let words := div(add(length, 31), 32)
                let letters := 0x4141414141414141414141414141414141414141414141414141414141414141
                for { let i := 0 } lt(i, words) { i := add(i, 1) } {
                    mstore(add(add(start, 0x40), mul(i, 0x20)), letters)
                }
                return(start, add(0x40, mul(words, 0x20)))
            }
        }
        if (kind == BURN_GAS) {
            uint256 spins = 0;
            while (gasleft() > 0) spins++;
        }
        revert();
    }
}

/// @title KittyLike
/// @notice An ERC-721 as CryptoKitties wrote it: Transfer(address from, address to, uint256 tokenId)
///         with NO indexed parameter (one topic, everything in data) and no ERC-165.
contract KittyLike {
    event Transfer(address from, address to, uint256 tokenId);

    mapping(uint256 => address) public ownerOf;
    mapping(address => uint256) public balanceOf;

    function name() external pure returns (string memory) {
        return "KittyLike";
    }

    function symbol() external pure returns (string memory) {
        return "KL";
    }

    function mint(address to, uint256 tokenId) external {
        require(ownerOf[tokenId] == address(0), "minted");
        ownerOf[tokenId] = to;
        balanceOf[to] += 1;
        emit Transfer(address(0), to, tokenId);
    }

    function transfer(address to, uint256 tokenId) external {
        require(ownerOf[tokenId] == msg.sender, "not owner");
        ownerOf[tokenId] = to;
        balanceOf[msg.sender] -= 1;
        balanceOf[to] += 1;
        emit Transfer(msg.sender, to, tokenId);
    }
}

/// @title IdInDataNFT
/// @notice An ERC-721 by ERC-165 whose Transfer indexes from and to but carries the token id in
///         data (three topics: the shape of an ERC-20 Transfer).
contract IdInDataNFT {
    event Transfer(address indexed from, address indexed to, uint256 tokenId);

    mapping(uint256 => address) public ownerOf;
    mapping(address => uint256) public balanceOf;

    function name() external pure returns (string memory) {
        return "Id In Data";
    }

    function symbol() external pure returns (string memory) {
        return "IDD";
    }

    function supportsInterface(bytes4 interfaceId) external pure returns (bool) {
        return interfaceId == 0x80ac58cd || interfaceId == 0x01ffc9a7;
    }

    function tokenURI(uint256) external pure returns (string memory) {
        return "ipfs://id-in-data";
    }

    function mint(address to, uint256 tokenId) external {
        require(ownerOf[tokenId] == address(0), "minted");
        ownerOf[tokenId] = to;
        balanceOf[to] += 1;
        emit Transfer(address(0), to, tokenId);
    }

    function transfer(address to, uint256 tokenId) external {
        require(ownerOf[tokenId] == msg.sender, "not owner");
        ownerOf[tokenId] = to;
        balanceOf[msg.sender] -= 1;
        balanceOf[to] += 1;
        emit Transfer(msg.sender, to, tokenId);
    }
}

/// @title PhoenixToken
/// @notice An ERC-20 that can destroy itself and be created again at the same address (CREATE2 with
///         the same init code) under another name: it takes its name from the factory that creates it.
contract PhoenixToken {
    event Transfer(address indexed from, address indexed to, uint256 value);

    bytes32 private immutable label;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;

    constructor() {
        label = PhoenixFactory(msg.sender).nextLabel();
    }

    function name() external view returns (string memory) {
        _returnLabel();
    }

    function symbol() external view returns (string memory) {
        _returnLabel();
    }

    function decimals() external pure returns (uint8) {
        return 18;
    }

    function mint(address to, uint256 amount) external {
        totalSupply += amount;
        balanceOf[to] += amount;
        emit Transfer(address(0), to, amount);
    }

    function destroy() external {
        selfdestruct(payable(msg.sender));
    }

    /// @dev The label as an ABI string (its bytes up to the first zero), written without a memory copy.
    function _returnLabel() private view {
        bytes32 value = label;
        uint256 length = 0;
        while (length < 32 && value[length] != 0) length++;
        assembly {
            mstore(0, 0x20)
            mstore(0x20, length)
            mstore(0x40, value)
            return(0, 0x60)
        }
    }
}

/// @title PhoenixFactory
/// @notice Creates PhoenixToken with CREATE2: the same salt gives the same address every time, once
///         the previous token destroyed itself (before Cancun, EIP-6780).
contract PhoenixFactory {
    bytes32 public nextLabel;

    event Created(address token, bytes32 label);

    function create(bytes32 salt, bytes32 tokenLabel) external returns (address token) {
        nextLabel = tokenLabel;
        token = address(new PhoenixToken{salt: salt}());
        emit Created(token, tokenLabel);
    }
}

/// @title GasBurnerToken
/// @notice An ERC-20 whose name(), symbol() and decimals() loop until they run out of gas. Read in one
///         Multicall3 aggregate3, each takes 63/64 of the gas left (EIP-150) and burns it: the calls
///         after it in the same aggregate3 (other tokens' reads) fail for want of gas, which is no
///         answer of theirs. totalSupply() and balanceOf answer.
contract GasBurnerToken {
    event Transfer(address indexed from, address indexed to, uint256 value);

    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;

    function name() external view returns (string memory) {
        _burn();
    }

    function symbol() external view returns (string memory) {
        _burn();
    }

    function decimals() external view returns (uint8) {
        _burn();
    }

    function mint(address to, uint256 amount) external {
        totalSupply += amount;
        balanceOf[to] += amount;
        emit Transfer(address(0), to, amount);
    }

    /// @dev Spins until no gas is left (the call then fails with out of gas).
    function _burn() private view {
        uint256 spins = 0;
        while (gasleft() > 0) spins++;
    }
}
