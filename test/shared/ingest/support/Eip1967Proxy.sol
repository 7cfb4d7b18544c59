// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title TestEip1967Proxy
/// @notice A minimal EIP-1967 proxy for the ingest's tests: the implementation address sits in the
///         standard slot, every change emits Upgraded(address), every unknown call is delegated, and
///         plain ether is accepted (so it can receive value in an internal call).
contract TestEip1967Proxy {
    /// bytes32(uint256(keccak256("eip1967.proxy.implementation")) - 1)
    bytes32 private constant IMPLEMENTATION_SLOT = 0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc;
    address private immutable owner;

    event Upgraded(address indexed implementation);

    constructor(address implementation) payable {
        owner = msg.sender;
        _setImplementation(implementation);
    }

    function upgradeTo(address implementation) external {
        require(msg.sender == owner, "proxy: not the owner");
        _setImplementation(implementation);
    }

    function _setImplementation(address implementation) private {
        assembly {
            sstore(IMPLEMENTATION_SLOT, implementation)
        }
        emit Upgraded(implementation);
    }

    receive() external payable {}

    fallback() external payable {
        assembly {
            let implementation := sload(IMPLEMENTATION_SLOT)
            calldatacopy(0, 0, calldatasize())
            let ok := delegatecall(gas(), implementation, 0, calldatasize(), 0, 0)
            returndatacopy(0, 0, returndatasize())
            switch ok
            case 0 {
                revert(0, returndatasize())
            }
            default {
                return(0, returndatasize())
            }
        }
    }
}

/// @notice A plain implementation (no token): its name is unknown to the ingest.
contract TestImplementationV1 {
    function version() external pure returns (uint256) {
        return 1;
    }
}
