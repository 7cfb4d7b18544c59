// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";

/// @title DemoSplitter
/// @notice Forwards ether to several recipients in value-carrying internal calls, and moves an
///         ERC-20 on the caller's behalf (internal calls to the token, using the caller's approval).
contract DemoSplitter {
    event Paid(address indexed to, uint256 amount);
    event PaymentFailed(address indexed to, uint256 amount);

    /// @notice Sends amounts[i] to recipients[i]; every payment must succeed and the amounts must
    ///         add up to msg.value.
    function split(address payable[] calldata recipients, uint256[] calldata amounts) external payable {
        require(recipients.length == amounts.length, "demo: length mismatch");
        uint256 total;
        for (uint256 i = 0; i < recipients.length; i++) {
            total += amounts[i];
            (bool ok, ) = recipients[i].call{value: amounts[i]}("");
            require(ok, "demo: payment failed");
            emit Paid(recipients[i], amounts[i]);
        }
        require(total == msg.value, "demo: value mismatch");
    }

    /// @notice Like split, but a recipient that refuses the ether is skipped and its share goes
    ///         back to the caller: the transaction succeeds with a failed internal call inside.
    function splitBestEffort(address payable[] calldata recipients, uint256[] calldata amounts) external payable {
        require(recipients.length == amounts.length, "demo: length mismatch");
        uint256 total;
        uint256 refund;
        for (uint256 i = 0; i < recipients.length; i++) {
            total += amounts[i];
            (bool ok, ) = recipients[i].call{value: amounts[i]}("");
            if (ok) {
                emit Paid(recipients[i], amounts[i]);
            } else {
                refund += amounts[i];
                emit PaymentFailed(recipients[i], amounts[i]);
            }
        }
        require(total == msg.value, "demo: value mismatch");
        if (refund > 0) {
            (bool refunded, ) = payable(msg.sender).call{value: refund}("");
            require(refunded, "demo: refund failed");
        }
    }

    /// @notice Moves amounts[i] of `token` from the caller to recipients[i]. The caller must have
    ///         approved this contract for the total.
    function distributeToken(IERC20 token, address[] calldata recipients, uint256[] calldata amounts) external {
        require(recipients.length == amounts.length, "demo: length mismatch");
        for (uint256 i = 0; i < recipients.length; i++) {
            require(token.transferFrom(msg.sender, recipients[i], amounts[i]), "demo: transfer failed");
        }
    }
}
