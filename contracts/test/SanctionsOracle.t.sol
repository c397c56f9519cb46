// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {TestSanctionsOracle} from "../src/TestSanctionsOracle.sol";
import {vm} from "./Cheats.sol";

/// The dev sanctions oracle keeps the published interface (owner-kept list, isSanctioned),
/// and what one `isSanctioned` read from a contract costs: the measure behind D33's choice
/// not to screen inside the router's `pay`.
contract SanctionsOracleTest {
    event log_named_uint(string key, uint256 val);

    address constant OWNER = address(0x0A11);
    address constant PAYER = address(0xCAFE);
    TestSanctionsOracle oracle;

    function setUp() public {
        oracle = new TestSanctionsOracle(OWNER);
    }

    function test_only_the_owner_keeps_the_list() public {
        address[] memory who = new address[](1);
        who[0] = PAYER;
        (bool ok,) = address(oracle).call(abi.encodeCall(oracle.addToSanctionsList, (who)));
        require(!ok, "only the owner lists");
        vm.prank(OWNER);
        oracle.addToSanctionsList(who);
        require(oracle.isSanctioned(PAYER), "listed");
        vm.prank(OWNER);
        oracle.removeFromSanctionsList(who);
        require(!oracle.isSanctioned(PAYER), "delisted");
    }

    /// `pay` is at 85,028 gas against its bar of 1.25 x two warm transfers (68,918): 1,119
    /// gas of headroom (DESIGN section 10). One cold `isSanctioned` read costs more than that.
    function test_one_on_chain_screen_costs_more_than_pay_has_left_under_its_bar() public {
        uint256 before = gasleft();
        bool listed = oracle.isSanctioned(PAYER);
        uint256 used = before - gasleft();
        emit log_named_uint("isSanctioned gas (cold oracle, cold slot)", used);
        require(!listed, "clear");
        require(used > 1_119, "fits under the bar");
    }
}
