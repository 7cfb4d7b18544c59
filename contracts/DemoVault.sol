// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title DemoVault
/// @notice Holds ether until its owner destroys it. Since Cancun (EIP-6780) SELFDESTRUCT outside
///         the creating transaction only sends the balance to the beneficiary; the code stays.
///         The call trace still shows a SELFDESTRUCT frame carrying the balance.
contract DemoVault {
    address public immutable owner;

    event Deposited(address indexed from, uint256 amount);

    constructor() payable {
        owner = msg.sender;
    }

    receive() external payable {
        emit Deposited(msg.sender, msg.value);
    }

    function destroy(address payable beneficiary) external {
        require(msg.sender == owner, "demo: not owner");
        selfdestruct(beneficiary);
    }
}
