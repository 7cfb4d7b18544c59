// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC1155} from "@openzeppelin/contracts/token/ERC1155/ERC1155.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

/// @title DemoMulti
/// @notice The demo chain's ERC-1155. The owner mints one id or a batch; holders move them with
///         safeTransferFrom (TransferSingle) and safeBatchTransferFrom (TransferBatch).
///         name() and symbol() are not part of ERC-1155 but let an explorer label the collection.
contract DemoMulti is ERC1155, Ownable {
    string public constant name = "Demo Multi";
    string public constant symbol = "DMULTI";

    constructor(address initialOwner)
        ERC1155("ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/multi/{id}.json")
        Ownable(initialOwner)
    {}

    function mint(address to, uint256 id, uint256 amount) external onlyOwner {
        _mint(to, id, amount, "");
    }

    function mintBatch(address to, uint256[] calldata ids, uint256[] calldata amounts) external onlyOwner {
        _mintBatch(to, ids, amounts, "");
    }
}
