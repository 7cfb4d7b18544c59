// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";
import {ERC1155} from "@openzeppelin/contracts/token/ERC1155/ERC1155.sol";

// Test-only NFTs whose token URIs a test chooses (the NFT metadata fetcher's tests point them at a
// metadata server on 127.0.0.1): not deployed by the demo.

/// @title UriNFT
/// @notice An ERC-721 whose tokenURI(id) is the base URI given at deployment followed by the id
///         (OpenZeppelin's default). Anyone may mint; the base URI can be changed (a "reveal").
contract UriNFT is ERC721 {
    string private base;

    constructor(string memory baseUri) ERC721("Uri NFT", "URINFT") {
        base = baseUri;
    }

    function mint(address to, uint256 tokenId) external {
        _mint(to, tokenId);
    }

    function setBaseURI(string calldata baseUri) external {
        base = baseUri;
    }

    function _baseURI() internal view override returns (string memory) {
        return base;
    }
}

/// @title UriMulti
/// @notice An ERC-1155 whose uri(id) is the template given at deployment (with EIP-1155's `{id}`).
///         Anyone may mint.
contract UriMulti is ERC1155 {
    string public constant name = "Uri Multi";
    string public constant symbol = "URIMULTI";

    constructor(string memory template) ERC1155(template) {}

    function mint(address to, uint256 id, uint256 amount) external {
        _mint(to, id, amount, "");
    }
}
