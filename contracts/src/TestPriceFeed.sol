// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

/// @notice The dev and test stand-in for a Chainlink price feed (D34): the published
/// AggregatorV3Interface (`decimals`, `description`, `version`, `getRoundData`,
/// `latestRoundData`) that the service reads exactly as it reads a real feed, and the
/// setters of Chainlink's MockV3Aggregator (`updateAnswer`, `updateRoundData`) that tests
/// move rates with, or age a round past its heartbeat. Written for this project from the
/// published interfaces; anyone may set it, as with MockV3Aggregator (dev chains only).
contract TestPriceFeed {
    uint8 public immutable decimals;
    string public description;
    uint256 public constant version = 4;

    uint80 public latestRound;
    int256 public latestAnswer;
    uint256 public latestTimestamp;

    mapping(uint80 => int256) private answers;
    mapping(uint80 => uint256) private updatedAts;
    mapping(uint80 => uint256) private startedAts;

    event AnswerUpdated(int256 indexed current, uint256 indexed roundId, uint256 updatedAt);

    constructor(uint8 decimals_, int256 initialAnswer, string memory description_) {
        decimals = decimals_;
        description = description_;
        updateAnswer(initialAnswer);
    }

    /// A new round answering `answer`, updated now.
    function updateAnswer(int256 answer) public {
        updateRoundData(latestRound + 1, answer, block.timestamp, block.timestamp);
    }

    /// A round as given: tests set an update time in the past to make the feed stale.
    function updateRoundData(uint80 roundId, int256 answer, uint256 updatedAt, uint256 startedAt) public {
        latestRound = roundId;
        latestAnswer = answer;
        latestTimestamp = updatedAt;
        answers[roundId] = answer;
        updatedAts[roundId] = updatedAt;
        startedAts[roundId] = startedAt;
        emit AnswerUpdated(answer, roundId, updatedAt);
    }

    function getRoundData(uint80 roundId)
        external
        view
        returns (uint80, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
    {
        require(updatedAts[roundId] > 0, "No data present");
        return (roundId, answers[roundId], startedAts[roundId], updatedAts[roundId], roundId);
    }

    function latestRoundData()
        external
        view
        returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
    {
        uint80 r = latestRound;
        return (r, answers[r], startedAts[r], updatedAts[r], r);
    }
}
