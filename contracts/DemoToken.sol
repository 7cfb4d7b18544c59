// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

/// @title DemoToken
/// @notice The demo chain's ERC-20 (18 decimals). Only the owner mints and burns, so every
///         balance on the demo chain follows from the activity plan.
contract DemoToken is ERC20, Ownable {
    constructor(address initialOwner) ERC20("Demo Token", "DEMO") Ownable(initialOwner) {}

    function mint(address to, uint256 amount) external onlyOwner {
        _mint(to, amount);
    }

    /// @notice Burns `amount` held by `from` (a Transfer to the zero address).
    function burn(address from, uint256 amount) external onlyOwner {
        _burn(from, amount);
    }
}
