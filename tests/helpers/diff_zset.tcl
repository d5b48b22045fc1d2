# diff_zset.tcl -- differential-test plugin for sorted sets (sourced by
# tests/integration/differential.tcl, which provides rkey rval pick rnd
# one_in rcase rshuffle serialize and the ::patterns list).
#
# Random ZADD (all options) ZINCRBY ZREM ZCARD ZSCORE ZMSCORE ZRANK ZREVRANK
# ZCOUNT ZLEXCOUNT, the ZRANGE family and ZRANGESTORE, ZREMRANGEBY*, ZPOPMIN
# ZPOPMAX ZMPOP, ZUNION ZINTER ZDIFF (+STORE) ZINTERCARD, deterministic
# ZRANDMEMBER and ZSCAN forms, and arity errors, over z0..z3 mostly (and
# the shared keys now and then, so strings give WRONGTYPE and sorted sets
# meet RENAME/COPY/MOVE); the set operations also read the set plugin's
# s0..s3 as inputs. Scores mix integers, fractions, infinities, -0
# and invalid texts; members are short strings, integers, binary bytes and
# some 65+ byte strings, and a bulk ZADD now and then crosses the
# 128-entry listpack limit, so both encodings and the conversions are
# exercised (the dataset check compares OBJECT ENCODING of every key).
#
# Sorted set order is deterministic, so replies compare raw, except:
#   * lex ranges are only asked of zl0/zl1 (or a missing key), whose
#     members all have score 0
#     (with mixed scores a lex range is unspecified and, on a skip list,
#     depends on the random node levels);
#   * nothing random: ZRANDMEMBER only with a count of 0, a count covering
#     the whole set (whole set, highest first), on missing keys or with bad
#     arguments; no blocking commands;
#   * ZSCAN only as ZSCAN key 0 COUNT 100000, which finishes in one call on
#     both servers; the "zscanfull" mode compares the cursor and the sorted
#     member/score pairs (a skip list is walked in hash order).

namespace eval ::diff_zset {
    variable keys [list z0 z1 z2 z3 "z:bin\x00\r\n"]
    variable lexkeys {zl0 zl1}
    variable strings [list a b c d e f g "" "x y" "bin\x00\r\nm\xff" "caf\xc3\xa9" \
            [string repeat M 65] [string repeat N 70] 1.5 01 -0 +1 abc ABC]
    variable scores {0 1 2 3 -1 -2 10 1.5 -0.5 0.1 2.5 inf -inf +inf -0 100 1e3 0x10 3.0
        123456789 1e17 5e18}
    variable badscores {abc nan "" " 1" "1 " 1e400 -1e400 1.5.5 "1\x00" inf1 --1}
}

proc ::diff_zset::key {} {
    variable keys
    if {[rnd 12]} { return [pick $keys] }
    return [rkey]
}

# Not the shared keys: one of them may hold a skip list with mixed scores.
proc ::diff_zset::lexkey {} {
    variable lexkeys
    if {[rnd 15]} { return [pick $lexkeys] }
    return z:missing
}

# Source keys of the multi-key commands: mostly sorted sets, sometimes the
# set plugin's keys (plain sets are valid ZUNION/ZINTER/ZDIFF inputs), now
# and then a shared key.
proc ::diff_zset::keylist {min max} {
    variable keys
    set n [expr {$min + [rnd [expr {$max - $min + 1}]]}]
    set out {}
    for {set i 0} {$i < $n} {incr i} {
        set r [rnd 20]
        if {$r < 16} {
            lappend out [pick $keys]
        } elseif {$r < 19} {
            lappend out [pick {s0 s1 s2 s3}]
        } else {
            lappend out [rkey]
        }
    }
    return $out
}

proc ::diff_zset::member {} {
    variable strings
    set r [rnd 20]
    if {$r < 10} { return [pick {a b c d e f g h i j}] }
    if {$r < 14} { return [expr {[rnd 12] - 2}] }
    if {$r < 19} { return [pick $strings] }
    return [rval]
}

proc ::diff_zset::score {} {
    variable scores
    variable badscores
    set r [rnd 30]
    if {$r < 12} { return [expr {[rnd 21] - 5}] }
    if {$r < 27} { return [pick $scores] }
    if {$r < 29} { return "[expr {[rnd 200] - 100}].[rnd 100]" }
    return [pick $badscores]
}

# A ZRANGEBYSCORE-style bound: (n, n, +-inf, and invalid ones.
proc ::diff_zset::bound {} {
    set r [rnd 20]
    if {$r < 9} { return [expr {[rnd 15] - 4}] }
    if {$r < 14} { return "([expr {[rnd 15] - 4}]" }
    if {$r < 17} { return [pick {-inf +inf inf (-inf (inf 1.5 (2.5 -0}] }
    return [pick {abc "" ( " 1" nan 1e400 1x "(1x" 0x10}]
}

proc ::diff_zset::lexbound {} {
    set r [rnd 20]
    if {$r < 6} { return [pick {- +}] }
    if {$r < 17} { return "[pick {( [}][pick {a b c d e f g h {} ab}]" }
    return [pick {a "" +x -x abc ( [}]
}

proc ::diff_zset::index {} {
    if {[rnd 12]} { return [expr {[rnd 21] - 10}] }
    return [pick {100 -100 9223372036854775807 -9223372036854775808 abc 1.5 ""}]
}

# [BYSCORE|BYLEX] [REV] [LIMIT o c] [WITHSCORES] for ZRANGE/ZRANGESTORE;
# returns {key min max options}.
proc ::diff_zset::zrange_args {store} {
    set type [pick {rank rank score score lex}]
    set rev [rnd 3]
    # Options are built as groups (LIMIT keeps its two numbers) and the
    # groups shuffled.
    set groups {}
    if {$type eq "lex"} {
        set k [lexkey]
        lassign [list [lexbound] [lexbound]] a b
        lappend groups [list [rcase BYLEX]]
    } elseif {$type eq "score"} {
        set k [key]
        lassign [list [bound] [bound]] a b
        lappend groups [list [rcase BYSCORE]]
    } else {
        set k [key]
        lassign [list [index] [index]] a b
    }
    if {$rev == 0} { lappend groups [list [rcase REV]] }
    if {$type ne "rank" || [one_in 15]} {
        if {[rnd 2]} {
            lappend groups [list [rcase LIMIT] [pick {0 1 2 -1 5}] [pick {1 2 3 -1 0 10}]]
        }
    }
    if {!$store && [rnd 2] && ($type ne "lex" || [one_in 10])} { lappend groups [list [rcase WITHSCORES]] }
    if {[one_in 30]} { lappend groups [list [pick {FOO BYSCORE REV LIMIT WITHSCORES}]] }
    return [list $k $a $b [concat {*}[rshuffle $groups]]]
}

proc ::diff_zset::zadd_options {} {
    set opts {}
    foreach o {NX XX GT LT CH INCR} {
        if {[rnd 7] == 0} { lappend opts [rcase $o] }
    }
    return [rshuffle $opts]
}

proc ::diff_zset::setop_options {op store} {
    set opts {}
    set n [pick {0 0 1 1 2}]
    for {set i 0} {$i < $n} {incr i} {
        switch [rnd 4] {
            0 {
                lappend opts [rcase WEIGHTS]
                set w [pick {1 2 3}]
                if {[one_in 5]} { set w [pick {1 2 3 4}] }
                for {set j 0} {$j < $w} {incr j} {
                    lappend opts [pick {1 2 0 -1 0.5 inf -inf 1.5 abc nan}]
                }
            }
            1 { lappend opts [rcase AGGREGATE] [pick {SUM MIN MAX sum max avg}] }
            2 { if {!$store} { lappend opts [rcase WITHSCORES] } }
            default { if {[one_in 4]} { lappend opts [pick {FOO LIMIT}] } }
        }
    }
    return $opts
}

proc ::diff_zset::gen {idx} {
    set r [rnd 180]
    foreach {limit cmd} {
        40 zadd 48 zincrby 56 zrem 59 zcard 64 zscore 67 zmscore 71 zrank 75 zcount
        79 zlexcount 92 zrange 96 zrangestore 99 zrevrange 103 zrangebyscore 106 zrevrangebyscore
        110 zrangebylex 112 zrevrangebylex 115 zremrangebyrank 118 zremrangebyscore
        120 zremrangebylex 126 zpop 130 zmpop 140 setop 146 setopstore 150 zintercard
        154 zrandmember 158 zscan 166 lexadd 170 bulk 174 long 180 arity
    } {
        if {$r < $limit} break
    }
    switch -- $cmd {
        zadd {
            set argv [concat [list [rcase ZADD] [key]] [zadd_options]]
            set n [expr {1 + [rnd 4]}]
            for {set i 0} {$i < $n} {incr i} { lappend argv [score] [member] }
            if {[one_in 20]} { lappend argv [score] }
            return [list raw $argv]
        }
        zincrby { return [list raw [list [rcase ZINCRBY] [key] [score] [member]]] }
        zrem {
            set argv [list [rcase ZREM] [key]]
            for {set i [rnd 4]} {$i >= 0} {incr i -1} { lappend argv [member] }
            return [list raw $argv]
        }
        zcard { return [list raw [list [rcase ZCARD] [key]]] }
        zscore { return [list raw [list [rcase ZSCORE] [key] [member]]] }
        zmscore { return [list raw [list [rcase ZMSCORE] [key] [member] [member] [member]]] }
        zrank { return [list raw [list [rcase [pick {ZRANK ZREVRANK}]] [key] [member]]] }
        zcount { return [list raw [list [rcase ZCOUNT] [key] [bound] [bound]]] }
        zlexcount { return [list raw [list [rcase ZLEXCOUNT] [lexkey] [lexbound] [lexbound]]] }
        zrange {
            lassign [zrange_args 0] k a b opts
            return [list raw [concat [list [rcase ZRANGE] $k $a $b] $opts]]
        }
        zrangestore {
            lassign [zrange_args 1] k a b opts
            return [list raw [concat [list [rcase ZRANGESTORE] [key] $k $a $b] $opts]]
        }
        zrevrange {
            set argv [list [rcase ZREVRANGE] [key] [index] [index]]
            if {[rnd 2]} { lappend argv [rcase WITHSCORES] }
            return [list raw $argv]
        }
        zrangebyscore - zrevrangebyscore {
            set argv [list [rcase [string toupper $cmd]] [key] [bound] [bound]]
            if {[rnd 2]} { lappend argv [rcase WITHSCORES] }
            if {[rnd 2]} { lappend argv [rcase LIMIT] [pick {0 1 2 -1}] [pick {1 2 -1 0 5}] }
            return [list raw $argv]
        }
        zrangebylex - zrevrangebylex {
            set argv [list [rcase [string toupper $cmd]] [lexkey] [lexbound] [lexbound]]
            if {[rnd 2]} { lappend argv [rcase LIMIT] [pick {0 1 2 -1}] [pick {1 2 -1 0 5}] }
            if {[one_in 10]} { lappend argv [rcase WITHSCORES] }
            return [list raw $argv]
        }
        zremrangebyrank {
            return [list raw [list [rcase ZREMRANGEBYRANK] [key] [index] [index]]]
        }
        zremrangebyscore {
            return [list raw [list [rcase ZREMRANGEBYSCORE] [key] [bound] [bound]]]
        }
        zremrangebylex {
            return [list raw [list [rcase ZREMRANGEBYLEX] [lexkey] [lexbound] [lexbound]]]
        }
        zpop {
            set argv [list [rcase [pick {ZPOPMIN ZPOPMAX}]] [pick [list [key] [lexkey]]]]
            if {[rnd 2]} { lappend argv [pick {0 1 2 3 10 -1 abc}] }
            if {[one_in 20]} { lappend argv 1 }
            return [list raw $argv]
        }
        zmpop {
            set keys [keylist 1 3]
            set n [llength $keys]
            if {[one_in 12]} { set n [pick {0 -1 abc 4 9223372036854775807}] }
            set argv [concat [list [rcase ZMPOP] $n] $keys [list [rcase [pick {MIN MAX MIN MAX MID}]]]]
            if {[rnd 2]} { lappend argv [rcase COUNT] [pick {1 2 3 10 0 -1 abc}] }
            if {[one_in 20]} { lappend argv [pick {COUNT FOO}] }
            return [list raw $argv]
        }
        setop - setopstore {
            set op [pick {ZUNION ZINTER ZDIFF}]
            set keys [keylist 1 3]
            set n [llength $keys]
            if {[one_in 12]} { set n [pick {0 -1 abc 4}] }
            set store [expr {$cmd eq "setopstore"}]
            set argv [list [rcase [expr {$store ? "${op}STORE" : $op}]]]
            if {$store} { lappend argv [key] }
            lappend argv $n {*}$keys
            return [list raw [concat $argv [setop_options $op $store]]]
        }
        zintercard {
            set keys [keylist 1 3]
            set n [llength $keys]
            if {[one_in 12]} { set n [pick {0 -1 abc 4}] }
            set argv [concat [list [rcase ZINTERCARD] $n] $keys]
            if {[rnd 3] == 0} { lappend argv [rcase LIMIT] [pick {0 1 2 10 -1 abc}] }
            if {[one_in 20]} { lappend argv [pick {WITHSCORES FOO}] }
            return [list raw $argv]
        }
        zrandmember {
            set argv [list [rcase ZRANDMEMBER] [key]]
            switch [rnd 5] {
                0 { lappend argv [pick {100000 1000 0}] [rcase WITHSCORES] }
                1 { lappend argv [pick {100000 0}] }
                2 { lappend argv [pick {abc -9223372036854775808 9223372036854775807 1.5}] WITHSCORES }
                3 { lappend argv 1 [pick {FOO WITHSCORES}] x }
                default { set argv [list [rcase ZRANDMEMBER] z:nokey [pick {-5 5 0}]] }
            }
            return [list raw $argv]
        }
        zscan {
            set argv [list [rcase ZSCAN] [key] 0 [rcase COUNT] 100000]
            if {[rnd 2]} { lappend argv [rcase MATCH] [pick {a* ?  *1* {[a-c]} * -* M*}] }
            if {[one_in 10]} {
                return [list raw [list [rcase ZSCAN] [key] [pick {abc -1 0}] [pick {COUNT MATCH TYPE FOO}]]]
            }
            return [list zscanfull $argv]
        }
        lexadd {
            set argv [list [rcase ZADD] [lexkey]]
            if {[one_in 6]} { lappend argv [rcase [pick {NX XX CH}]] }
            for {set i [rnd 4]} {$i >= 0} {incr i -1} {
                lappend argv 0 [pick [list a b c d e f g h ab abc "" "b\x00" B [string repeat M 65]]]
            }
            return [list raw $argv]
        }
        bulk {
            # Around the 128-entry listpack limit.
            set n [expr {120 + [rnd 15]}]
            set argv [list [rcase ZADD] [key]]
            for {set i 0} {$i < $n} {incr i} { lappend argv [rnd 50] "b$i" }
            return [list raw $argv]
        }
        long {
            set argv [list [rcase ZADD] [key] [score] [string repeat L [expr {60 + [rnd 10]}]]]
            return [list raw $argv]
        }
        arity {
            set k [key]
            return [list raw [pick [list [list ZADD $k 1] [list ZINCRBY $k 1] [list ZREM $k] \
                    [list ZCARD] [list ZCOUNT $k 1] [list ZSCORE $k] [list ZRANK $k a b] \
                    [list ZRANGE $k 0] [list ZRANGESTORE $k $k 0] [list ZREVRANGE $k] \
                    [list ZRANGEBYLEX $k -] [list ZREMRANGEBYRANK $k 0] [list ZPOPMIN] \
                    [list ZMPOP 1 $k] [list ZUNION 1] [list ZINTERSTORE $k 1] [list ZDIFF 1] \
                    [list ZINTERCARD 1] [list ZRANDMEMBER] [list ZSCAN $k] [list ZMSCORE $k]]]]
        }
    }
    error "diff_zset: unhandled command $cmd"
}

proc ::diff_zset::dump {key} {
    return [list [list raw [list ZCARD $key]] [list raw [list ZRANGE $key 0 -1 WITHSCORES]]]
}

rename ::normalize ::diff_zset::normalize_next
proc ::normalize {mode reply} {
    if {$mode eq "zscanfull"} {
        lassign $reply raw parsed
        if {[lindex $parsed 0] ne "*" || [llength [lindex $parsed 1]] != 2} { return $raw }
        lassign [lindex $parsed 1] cursor items
        set pairs {}
        foreach {m s} [lindex $items 1] { lappend pairs [list $m $s] }
        return "cursor [lindex $cursor 1] [lsort $pairs]"
    }
    return [::diff_zset::normalize_next $mode $reply]
}

diff_plugin zset 150 ::diff_zset::gen
diff_dump ::diff_zset::dump
