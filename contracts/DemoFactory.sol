// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title DemoChild
/// @notice What the factory creates: a tiny contract remembering its creator and a tag.
contract DemoChild {
    address public immutable factory;
    uint256 public immutable tag;

    constructor(uint256 tag_) {
        factory = msg.sender;
        tag = tag_;
    }
}

/// @title DemoEphemeral
/// @notice Destroys itself in its constructor, sending the value it was created with to
///         `beneficiary`. Since Cancun (EIP-6780) a SELFDESTRUCT in the creating transaction
///         still deletes the account, so this child exists only inside its creation trace.
contract DemoEphemeral {
    constructor(address payable beneficiary) payable {
        selfdestruct(beneficiary);
    }
}

/// @title DemoFactory
/// @notice A contract that creates contracts: with CREATE (address from the factory's nonce),
///         with CREATE2 (address from a salt and the init code) and a self-destructing child.
contract DemoFactory {
    event ChildCreated(address indexed child, uint256 tag, bool viaCreate2, bytes32 salt);
    event EphemeralCreated(address indexed ephemeral, address indexed beneficiary, uint256 value);

    address[] public children;

    function createChild(uint256 tag) external returns (address child) {
        child = address(new DemoChild(tag));
        children.push(child);
        emit ChildCreated(child, tag, false, bytes32(0));
    }

    function createChildDeterministic(bytes32 salt, uint256 tag) external returns (address child) {
        child = address(new DemoChild{salt: salt}(tag));
        children.push(child);
        emit ChildCreated(child, tag, true, salt);
    }

    function createEphemeral(address payable beneficiary) external payable returns (address ephemeral) {
        ephemeral = address(new DemoEphemeral{value: msg.value}(beneficiary));
        emit EphemeralCreated(ephemeral, beneficiary, msg.value);
    }

    function childCount() external view returns (uint256) {
        return children.length;
    }
}
