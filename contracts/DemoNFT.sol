// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";
import {ERC721Burnable} from "@openzeppelin/contracts/token/ERC721/extensions/ERC721Burnable.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {Base64} from "@openzeppelin/contracts/utils/Base64.sol";
import {Strings} from "@openzeppelin/contracts/utils/Strings.sol";

/// @title DemoNFT
/// @notice The demo chain's ERC-721. Even token ids carry their metadata on chain as a
///         `data:application/json;base64,...` URI; odd ids point at `ipfs://<cid>/<id>.json`.
///         The owner mints; a holder (or an approved operator) burns.
contract DemoNFT is ERC721, ERC721Burnable, Ownable {
    string private constant IPFS_BASE = "ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/";

    constructor(address initialOwner) ERC721("Demo NFT", "DNFT") Ownable(initialOwner) {}

    function mint(address to, uint256 tokenId) external onlyOwner {
        _mint(to, tokenId);
    }

    /// @notice True when tokenURI(tokenId) is an on-chain data: URI (even ids).
    function hasOnChainMetadata(uint256 tokenId) public pure returns (bool) {
        return tokenId % 2 == 0;
    }

    function tokenURI(uint256 tokenId) public view override returns (string memory) {
        _requireOwned(tokenId);
        string memory id = Strings.toString(tokenId);
        if (!hasOnChainMetadata(tokenId)) {
            return string.concat(IPFS_BASE, id, ".json");
        }
        bytes memory json = abi.encodePacked(
            '{"name":"Demo NFT #', id,
            '","description":"A demo NFT whose metadata lives on chain.","image":"', IPFS_BASE, id,
            '.svg","external_url":"https://example.com/demo-nft/', id,
            '","attributes":[{"trait_type":"Parity","value":"even"},{"trait_type":"Serial","value":"', id, '"}]}'
        );
        return string.concat("data:application/json;base64,", Base64.encode(json));
    }
}
