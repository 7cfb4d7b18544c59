// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title DemoReverter
/// @notice Fails on purpose: alwaysReverts() reverts with a reason string, and plain ether sent
///         to it is refused (a failed internal call when another contract pays it).
contract DemoReverter {
    uint256 public attempts;

    function alwaysReverts() external {
        attempts += 1;
        require(false, "demo: always reverts");
    }

    receive() external payable {
        revert("demo: refuses ether");
    }
}
