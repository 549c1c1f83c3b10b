// The JSON the web API sends and takes (poolcheckers/server/schemas.py, served as
// /openapi.json), as JSDoc types for TypeScript's check of the pages (tsconfig.json).
// Type declarations only: the pages import them with `@import`, which the browser
// never loads.

/** @typedef {"black" | "white"} Color */

/**
 * @typedef {object} ErrorDetail
 * @property {string} code
 * @property {string} message
 */

/**
 * A move as the server lists it: its notation (R4), its landings, every path that
 * makes it, the squares it captures and the board after it (Board.squares()).
 * @typedef {object} LegalMove
 * @property {string} notation
 * @property {number[]} path
 * @property {number[][]} paths
 * @property {number[]} captured
 * @property {string} board_after
 */

/**
 * @typedef {object} LastMove
 * @property {number[]} path
 * @property {number[]} captured
 */

/**
 * @typedef {object} OutcomeInfo
 * @property {string | null} termination
 * @property {Color | null} winner
 * @property {string | null} result
 * @property {string | null} reason
 */

/**
 * @typedef {object} ClockInfo
 * @property {number} black
 * @property {number} white
 * @property {number} initial
 * @property {number} increment
 * @property {Color | null} running
 */

/**
 * @typedef {object} CorrespondenceInfo
 * @property {number} days
 * @property {number | null} deadline
 * @property {number | null} left
 * @property {Color | null} running
 */

/**
 * @typedef {object} Counters
 * @property {number} r18_plies
 * @property {number} r18_limit_plies
 * @property {number} r19_moves
 * @property {boolean} r19_active
 * @property {number} r19_limit
 */

/**
 * @typedef {object} Seats
 * @property {boolean} black
 * @property {boolean} white
 */

/**
 * A rule set as RuleSet.to_dict() writes it: option name -> value (docs/RULES.md §9).
 * @typedef {Record<string, RuleValue>} Rules
 */

/** @typedef {string | number | boolean | null} RuleValue */

/** @typedef {"engine" | "local" | "online" | "imported"} GameMode */

/** @typedef {"resign" | "draw-offer" | "draw-accept" | "draw-decline" | "takeback" | "abort" | "rematch" | "rematch-decline"} GameAction */

/**
 * @typedef {object} GameState
 * @property {Color | "both" | null} [your_color]
 * @property {string} id
 * @property {GameMode} mode
 * @property {"running" | "finished" | "aborted"} status
 * @property {Rules} rules
 * @property {string[]} rules_notes
 * @property {string} start_fen
 * @property {string} fen
 * @property {string} board
 * @property {Color} turn
 * @property {Color} start_turn
 * @property {number} ply
 * @property {number} version
 * @property {string[]} moves
 * @property {LegalMove[]} legal_moves
 * @property {LastMove | null} last_move
 * @property {OutcomeInfo | null} outcome
 * @property {ClockInfo | null} clock
 * @property {CorrespondenceInfo | null} [correspondence]
 * @property {Counters} counters
 * @property {Color | null} draw_offer
 * @property {boolean} [can_abort]
 * @property {Color | null} [rematch_offer]
 * @property {string | null} [rematch_game]
 * @property {number | null} level
 * @property {Color | null} engine_color
 * @property {Seats} seats
 * @property {Record<string, string>} tags
 * @property {boolean} [rated]
 * @property {string | null} [category] bullet, blitz, rapid, classical or correspondence
 * @property {TreeLine | null} [annotations] an imported game's comments and variations
 */

/**
 * A line of a game's move tree (the PDN library's game_tree): the comment and NAGs
 * before its first move, then its moves.
 * @typedef {object} TreeLine
 * @property {TreeMove[]} moves
 * @property {string} [comment]
 * @property {number[]} [nags]
 */

/**
 * A move of a TreeLine with its annotations; its variations stand in for it.
 * @typedef {object} TreeMove
 * @property {string} move
 * @property {string} [comment]
 * @property {number[]} [nags]
 * @property {string} [strength]
 * @property {TreeLine[]} [variations]
 */

/**
 * @typedef {object} TreeExport
 * @property {string} pdn
 */

/**
 * POST /api/analysis/export: a move tree to write as PDN.
 * @typedef {object} TreeExportRequest
 * @property {string | null} fen
 * @property {Rules | null} rules
 * @property {Record<string, string>} tags
 * @property {string} result
 * @property {TreeLine} tree
 */

/**
 * @typedef {object} TimeControlInfo
 * @property {number} initial
 * @property {number} increment
 */

/**
 * @typedef {object} GameSummary
 * @property {string} id
 * @property {string} mode
 * @property {string} status
 * @property {number} ply
 * @property {number} moves_count
 * @property {Seats} seats
 * @property {TimeControlInfo | null} [clock]
 * @property {Rules} rules
 * @property {number | null} level
 * @property {Color | null} engine_color
 * @property {string | null} result
 * @property {string | null} reason
 * @property {number} created
 * @property {number} updated
 * @property {Record<string, string>} tags
 * @property {string | null} [played_on] the day played (YYYY-MM-DD): an imported game's Date tag, else its start
 */

/**
 * @typedef {object} GameList
 * @property {number | null} [total] the games the filters match, over every page
 * @property {GameSummary[]} games
 */

/**
 * @typedef {object} CreateGame
 * @property {"engine" | "local" | "online"} mode
 * @property {Rules | null} rules
 * @property {string | null} fen
 * @property {number | null} level
 * @property {Color} color
 * @property {TimeControlInfo | null} clock
 */

/**
 * @typedef {object} CreatedGame
 * @property {GameState} game
 * @property {string} token
 * @property {string | null} invite
 */

/**
 * @typedef {object} JoinedGame
 * @property {GameState} game
 * @property {string} token
 */

/**
 * @typedef {object} TablebaseMove
 * @property {string} move
 * @property {"win" | "draw" | "loss"} value
 * @property {number | null} dtz
 */

/**
 * @typedef {object} TablebaseInfo
 * @property {"win" | "draw" | "loss"} value
 * @property {number | null} dtz
 * @property {"win" | "draw" | "loss"} fresh_value
 * @property {TablebaseMove[]} moves
 * @property {string[]} [line] the tables' line to the end of a won or lost game
 * @property {number | null} [win_in] the winner's moves along it
 */

/**
 * @typedef {object} PositionInfo
 * @property {string} fen
 * @property {string} board
 * @property {string} start_fen
 * @property {Color} turn
 * @property {Color} start_turn
 * @property {number} ply
 * @property {Rules} rules
 * @property {string[]} rules_notes
 * @property {string[]} moves
 * @property {string} line
 * @property {LegalMove[]} legal_moves
 * @property {LastMove | null} last_move
 * @property {OutcomeInfo | null} outcome
 * @property {Counters} counters
 * @property {TablebaseInfo | null} [tablebase]
 */

/**
 * @typedef {object} PdnGameInfo
 * @property {number} game
 * @property {Record<string, string>} tags
 * @property {string} start_fen
 * @property {string[]} moves
 * @property {number} [moves_count]
 * @property {string} result
 * @property {Rules} rules
 * @property {TreeLine | null} [tree]
 */

/**
 * @typedef {object} PdnReadError
 * @property {number} game
 * @property {number} line
 * @property {number} column
 * @property {string | null} token
 * @property {string} message
 * @property {PdnGameInfo | null} partial
 */

/**
 * @typedef {object} PdnReadResult
 * @property {PdnGameInfo[]} games
 * @property {PdnReadError[]} errors
 */

/**
 * @typedef {object} ImportError
 * @property {number} game
 * @property {number} line
 * @property {number} column
 * @property {string} message
 */

/**
 * @typedef {object} ImportResult
 * @property {string[]} imported
 * @property {ImportError[]} errors
 * @property {{game: number, id: string}[]} [duplicates]
 */

/**
 * @typedef {object} Health
 * @property {boolean} ok
 * @property {boolean} engine
 */

/**
 * @typedef {object} RuleChoice
 * @property {RuleValue} value
 * @property {string} label
 */

/**
 * @typedef {object} RuleOptionInfo
 * @property {string} name
 * @property {string} label
 * @property {string} rule
 * @property {"choice" | "number" | "boolean"} kind
 * @property {RuleValue} default
 * @property {RuleChoice[]} choices
 * @property {number | null} minimum
 * @property {number | null} maximum
 */

/**
 * The smallest and the largest value a request's field may take (both allowed).
 * @typedef {object} Bounds
 * @property {number} minimum
 * @property {number} maximum
 */

/**
 * The bounds the server checks requests against (GET /api/rules `limits`).
 * @typedef {object} RequestLimits
 * @property {number} analysis_lines
 * @property {number} analysis_moves
 * @property {number} analysis_seconds
 * @property {Bounds} level
 * @property {number} clock_initial_seconds
 * @property {number} clock_increment_seconds
 * @property {Bounds} seek_initial_seconds
 * @property {Bounds} seek_increment_seconds
 * @property {Bounds} seek_days
 * @property {Bounds} username_length
 * @property {Bounds} password_length
 * @property {number} pdn_bytes
 * @property {number} min_rated_plies plies a rated game must last to change the ratings
 */

/**
 * @typedef {object} RulesInfo
 * @property {Rules} default
 * @property {RuleOptionInfo[]} options
 * @property {RequestLimits} limits
 */

/**
 * One of the engine's best lines (multi-PV) of a search message.
 * @typedef {object} AnalysisLine
 * @property {string} move
 * @property {number} [score]
 * @property {number | null} [win_in]
 * @property {string} score_text
 * @property {string[]} pv
 * @property {string} line
 */

/**
 * A search's progress ("info") or end ("done") on /ws/analysis.
 * @typedef {object} AnalysisReport
 * @property {"info" | "done"} type
 * @property {string | number | null} [id]
 * @property {number} depth
 * @property {number} score
 * @property {number | null} win_in
 * @property {string} score_text
 * @property {string[]} pv
 * @property {string} line
 * @property {number} nodes
 * @property {number} nps
 * @property {string | null} [best]
 * @property {AnalysisLine[]} [lines]
 */

/**
 * @typedef {object} ErrorMessage
 * @property {"error"} type
 * @property {ErrorDetail} [error]
 * @property {string | number | null} [id]
 */

/** @typedef {AnalysisReport | ErrorMessage} AnalysisMessage */

/**
 * @typedef {{type: "state", game: GameState} | ErrorMessage} GameMessage
 */

/**
 * @typedef {object} AccountInfo
 * @property {string} username
 * @property {string} csrf_token
 */

/**
 * @typedef {object} PerfInfo
 * @property {number} rating
 * @property {number} rd
 * @property {number} games
 * @property {boolean} provisional
 */

/**
 * A seek's clock: minutes and increment, or days a move (correspondence).
 * @typedef {{initial: number, increment: number} | {days: number}} SeekClock
 */

/**
 * @typedef {object} SeekInfo
 * @property {string} id
 * @property {string} author
 * @property {PerfInfo | null} rating
 * @property {SeekClock | null} clock
 * @property {string | null} category
 * @property {boolean} rated
 * @property {string} color
 * @property {Rules} rules
 * @property {number[] | null} rating_range
 * @property {number} created
 */

/**
 * What /ws/lobby sends: the open seeks, then each change, and the game of an
 * accepted seek.
 * @typedef {{type: "seeks", seeks: SeekInfo[]} | {type: "seek_added", seek: SeekInfo} | {type: "seek_removed", id: string} | {type: "game", id: string} | {type: "challenge" | "challenge_accepted" | "challenge_declined" | "challenge_cancelled", challenge: ChallengeInfo} | {type: "tournament_invitation", tournament: string, name: string} | {type: "challenges_changed"} | {type: "pong"}} LobbyMessage
 */

/**
 * @typedef {object} PlayNow
 * @property {GameState | null} [game]
 * @property {SeekInfo | null} [seek]
 */

/**
 * @typedef {object} PlayerGame
 * @property {string} id
 * @property {string} status
 * @property {string | null} category
 * @property {boolean} rated
 * @property {string} black
 * @property {string} white
 * @property {number | null} [level] the engine's level in a game against it
 * @property {string | null} result
 * @property {"win" | "draw" | "loss" | null} player_result
 * @property {boolean} [forfeit] won or lost by forfeit (a side did not make its first move)
 * @property {number | null} black_rating
 * @property {number | null} white_rating
 * @property {number} ply
 */

/**
 * @typedef {object} PlayerPage
 * @property {string} username
 * @property {boolean} [bot]
 * @property {Record<string, PerfInfo>} ratings
 * @property {Record<string, {games: number, wins: number, draws: number, losses: number, best: number | null}>} [stats]
 * @property {PlayerGame[]} games
 * @property {number} total
 * @property {PlayerGame[]} current
 */

/**
 * @typedef {object} HeadToHeadRow
 * @property {string} opponent
 * @property {number} wins
 * @property {number} draws
 * @property {number} losses
 */

/**
 * @typedef {object} LeaderboardRow
 * @property {number} rank
 * @property {string} username
 * @property {number} rating
 * @property {number} games
 */

/**
 * An event as the list shows it (GET /api/tournaments).
 * @typedef {object} TournamentSummary
 * @property {string} id
 * @property {string} name
 * @property {"round_robin" | "swiss" | "arena"} system
 * @property {"created" | "running" | "finished"} status
 * @property {number} round
 * @property {number | null} rounds
 * @property {SeekClock} clock
 * @property {string} category
 * @property {boolean} rated
 * @property {number} games_per_pairing
 * @property {boolean} double
 * @property {number | null} duration_minutes
 * @property {number | null} starts_at
 * @property {number | null} started_at
 * @property {number | null} ends_at
 * @property {number | null} [round_minutes]
 * @property {number | null} [next_round_at]
 * @property {number | null} max_players
 * @property {boolean} private
 * @property {boolean} paused
 * @property {string} creator
 * @property {number} players
 */

/**
 * A line of an event's standings.
 * @typedef {object} StandingRow
 * @property {number} rank
 * @property {string} username
 * @property {number} score
 * @property {number} games
 * @property {number} wins
 * @property {number} draws
 * @property {number} losses
 * @property {number} match_points
 * @property {Record<string, number>} tiebreaks
 * @property {number} rating
 * @property {boolean} withdrawn
 * @property {boolean} [paused] withdrawn by an arena for not making a first move in time
 * @property {"invited" | "declined" | null} [invitation] named by an imported file, not accepted
 * @property {boolean} [fire]
 * @property {number[]} [sheet]
 */

/**
 * A game (or bye) of an event.
 * @typedef {object} TournamentPairing
 * @property {number} round
 * @property {number | null} board
 * @property {number} leg
 * @property {string} black
 * @property {string | null} white
 * @property {string | null} game
 * @property {string | null} result
 * @property {string | null} forfeit
 * @property {boolean} [aborted] ended before both sides moved, not by the no-show rule: nobody scores
 * @property {boolean} bye
 * @property {string[]} berserk
 */

/**
 * The whole event (GET /api/tournaments/{id}).
 * @typedef {TournamentSummary & {
 *   total_rounds: number | null,
 *   standings: StandingRow[],
 *   pairings: TournamentPairing[],
 *   tiebreak_order: string[],
 *   crosstable?: {players: string[], rows: string[][]},
 *   podium?: string[],
 *   winner?: string | null,
 *   you?: {joined: boolean, creator: boolean, game: string | null, invitation?: "invited" | "declined" | null, paused?: "no_show" | null},
 * }} TournamentEvent
 */

/**
 * A direct challenge (GET /api/challenges).
 * @typedef {object} ChallengeInfo
 * @property {string} id
 * @property {string} challenger
 * @property {string} challenged
 * @property {SeekClock | null} clock
 * @property {string | null} category
 * @property {boolean} rated
 * @property {"black" | "white" | "random"} color
 * @property {"open" | "accepted" | "declined" | "cancelled" | "expired"} status
 * @property {string | null} reason
 * @property {string | null} game
 * @property {number} expires
 */

/**
 * Whom a player takes challenges from (GET/POST /api/challenges/policy).
 * @typedef {object} ChallengePolicy
 * @property {"everyone" | "played" | "nobody"} accept_from
 */

export {};

/**
 * An API token as the account page lists it (never the token itself).
 * @typedef {object} ApiToken
 * @property {string} id
 * @property {string} label
 * @property {string[]} scopes
 * @property {number} created
 * @property {number | null} last_used
 */

/**
 * GET /api/account/tokens.
 * @typedef {object} TokenList
 * @property {ApiToken[]} tokens
 * @property {Record<string, string>} scopes
 * @property {boolean} bot
 */
