# diff_set.tcl -- differential-test plugin for sets (sourced by
# tests/integration/differential.tcl, which provides rkey rval pick rnd
# one_in rcase rshuffle serialize and the ::patterns list).
#
# Random SADD SREM SCARD SISMEMBER SMISMEMBER SMEMBERS SPOP SRANDMEMBER SMOVE
# SINTER SINTERCARD SINTERSTORE SUNION SUNIONSTORE SDIFF SDIFFSTORE SSCAN over
# s0..s3 mostly (and the shared keys, so strings give WRONGTYPE and sets meet
# RENAME/COPY/MOVE), with members that are mostly small integers (intsets
# live long), strings and non-canonical numbers that convert them, and now
# and then a bulk SADD across the 512-entry intset limit. The dataset check
# compares OBJECT ENCODING of every key, so conversions must match.
#
# Member order of hashtable sets is implementation-defined, so SMEMBERS,
# SINTER, SUNION, SDIFF use the base "sort" mode (type_set.tcl checks the
# sorted order of intsets). Randomness is kept out of the dataset:
#   * SPOP on the shared keys only with count 0, a count above any set's
#     size (pops everything: deterministic) or bad arguments;
#   * real random pops happen on s:ri / s:rs only, which are touched by
#     nothing but SADD of a member unique to the command (always adds 1),
#     SPOP, SRANDMEMBER and SCARD; s:ri holds only integers and s:rs only
#     strings, so their encodings cannot depend on which members were
#     popped; their dump compares SCARD only.
# Reply modes added here, through a wrapper around the base `normalize`:
#   slen       SPOP/SRANDMEMBER: random, so only the reply type and the
#              element count
#   sscan      SSCAN with a small COUNT: hashtable steps depend on the table
#              layout, so only the shape is compared
#   sscanfull  SSCAN 0 with a huge COUNT finishes in one call on both
#              servers: cursor and sorted members are compared

namespace eval ::diff_set {
    variable strings [list a b c d "" "x y" "bin\x00\r\nm\xff" [string repeat M 70] \
            "caf\xc3\xa9" 1.5 " 2" 01 -0 +1 9223372036854775808 -9223372036854775809 abc]
    variable bigints {9223372036854775807 -9223372036854775808 32767 -32768 32768
        2147483647 2147483648 -2147483649}
    variable keys [list s0 s1 s2 s3 "s:bin\x00\r\n"]
    variable randkeys {s:ri s:rs}
}

proc ::diff_set::key {} {
    variable keys
    if {[rnd 10] < 8} { return [pick $keys] }
    return [rkey]
}

# Source keys of the multi-key commands: shared keys (mostly strings) only
# now and then, or nearly every intersection would be a WRONGTYPE.
proc ::diff_set::keylist {min max} {
    variable keys
    set n [expr {$min + [rnd [expr {$max - $min + 1}]]}]
    set out {}
    for {set i 0} {$i < $n} {incr i} {
        if {[rnd 20]} { lappend out [pick $keys] } else { lappend out [rkey] }
    }
    return $out
}

proc ::diff_set::member {} {
    variable strings
    variable bigints
    set r [rnd 20]
    if {$r < 12} { return [expr {[rnd 16] - 3}] }
    if {$r < 13} { return [pick $bigints] }
    if {$r < 18} { return [pick $strings] }
    return [rval]
}

proc ::diff_set::members {min max} {
    set n [expr {$min + [rnd [expr {$max - $min + 1}]]}]
    set out {}
    for {set i 0} {$i < $n} {incr i} { lappend out [member] }
    return $out
}

proc ::diff_set::scanopts {} {
    set opts {}
    foreach o [rshuffle {MATCH COUNT}] {
        if {[rnd 3] == 0} continue
        lappend opts [rcase $o]
        if {[one_in 30]} continue   ;# missing value
        if {$o eq "MATCH"} {
            lappend opts [pick [concat $::patterns [list 1* ? *1* {[0-3]} -* * a* "*\x00*"]]]
        } else {
            lappend opts [pick {1 2 5 10 20 0 -1 abc}]
        }
    }
    if {[one_in 25]} { lappend opts [pick {TYPE FOO}] string }
    return $opts
}

# SPOP/SRANDMEMBER/SCARD/SADD on the keys that hold random-pop sets.
proc ::diff_set::random_op {idx} {
    variable randkeys
    set k [pick $randkeys]
    switch [rnd 10] {
        0 - 1 - 2 - 3 {
            set n [expr {1 + [rnd 3]}]
            set argv [list [rcase SADD] $k]
            for {set i 0} {$i < $n} {incr i} {
                set m [expr {$idx * 4 + $i}]
                if {$k ne "s:ri"} { set m "m$m" }
                lappend argv $m
            }
            return [list raw $argv]
        }
        4 - 5 { return [list slen [list [rcase SPOP] $k]] }
        6 { return [list slen [list [rcase SPOP] $k [pick {0 1 2 3 5 8 100}]]] }
        7 - 8 {
            if {[rnd 3] == 0} { return [list slen [list [rcase SRANDMEMBER] $k]] }
            return [list slen [list [rcase SRANDMEMBER] $k [pick {0 1 2 3 5 -1 -3 -8 8 100}]]]
        }
        default { return [list raw [list [rcase SCARD] $k]] }
    }
}

proc ::diff_set::gen {idx} {
    set r [rnd 150]
    foreach {limit cmd} {
        43 sadd 53 srem 57 scard 63 sismember 67 smismember 76 smembers 80 spop
        86 srandmember 96 smove 103 sinter 109 sintercard 114 sinterstore
        119 sunion 124 sunionstore 129 sdiff 134 sdiffstore 139 sscan 145 random
        147 bulk 150 arity
    } {
        if {$r < $limit} break
    }
    set C [rcase [string toupper $cmd]]
    set k [key]
    switch -- $cmd {
        sadd { return [list raw [concat [list $C $k] [members 1 4]]] }
        srem { return [list raw [concat [list $C $k] [members 1 3]]] }
        scard { return [list raw [list $C $k]] }
        sismember { return [list raw [list $C $k [member]]] }
        smismember { return [list raw [concat [list $C $k] [members 1 4]]] }
        smembers { return [list sort [list $C $k]] }
        spop {
            set count [pick {100000 100000 100000 0 -1 abc "" 9223372036854775807}]
            set argv [list $C $k $count]
            if {[one_in 10]} { lappend argv 1 }
            return [list sort $argv]
        }
        srandmember {
            set argv [list $C $k]
            if {[rnd 4]} {
                lappend argv [pick {0 1 2 3 5 -1 -2 -5 -20 10 100 100000 \
                        -9223372036854775808 9223372036854775807 abc 1.5 ""}]
            }
            if {[one_in 20]} { lappend argv 1 }
            return [list slen $argv]
        }
        smove {
            # Not expr ?: with members: expr would read "inf" or "1e400" as numbers.
            if {[rnd 3]} { set m [member] } else { set m [pick {0 1 2 a b}] }
            return [list raw [list $C $k [key] $m]]
        }
        sinter - sunion - sdiff { return [list sort [concat [list $C] [keylist 1 4]]] }
        sinterstore - sunionstore - sdiffstore {
            return [list raw [concat [list $C [key]] [keylist 1 4]]]
        }
        sintercard {
            set keys [keylist 1 3]
            set n [llength $keys]
            if {[one_in 12]} { set n [pick {0 -1 abc 4 9223372036854775807 ""}] }
            set argv [concat [list $C $n] $keys]
            if {[rnd 3] == 0} {
                lappend argv [rcase LIMIT] [pick {0 1 2 3 10 -1 abc}]
            }
            if {[one_in 25]} { lappend argv [pick {LIMIT FOO}] }
            return [list raw $argv]
        }
        sscan {
            if {[rnd 3] == 0} {
                set argv [list $C $k 0 [rcase COUNT] 100000]
                if {[rnd 2]} { lappend argv [rcase MATCH] [pick {1* *1* {[0-3]} * a* -*}] }
                return [list sscanfull $argv]
            }
            set cursor [pick {0 0 0 0 1 7 abc -1 18446744073709551616 " 0"}]
            return [list sscan [concat [list $C $k $cursor] [scanopts]]]
        }
        random { return [random_op $idx] }
        bulk {
            # Many members at once: around the 512-entry intset limit.
            set n [expr {490 + [rnd 40]}]
            set base [expr {[rnd 40] - 10}]
            set argv [list [rcase SADD] $k]
            for {set i 0} {$i < $n} {incr i} { lappend argv [expr {$base + $i}] }
            if {[one_in 4]} { lappend argv [pick {x 1.5 01}] }
            return [list raw $argv]
        }
        arity {
            return [list raw [pick [list [list SADD $k] [list SREM $k] [list SCARD] \
                    [list SCARD $k a] [list SISMEMBER $k] [list SMISMEMBER $k] \
                    [list SMEMBERS] [list SPOP] [list SRANDMEMBER] [list SMOVE $k $k] \
                    [list SINTER] [list SINTERCARD 1] [list SINTERSTORE $k] [list SUNION] \
                    [list SUNIONSTORE $k] [list SDIFF] [list SDIFFSTORE $k] [list SSCAN $k]]]]
        }
    }
    error "diff_set: unhandled command $cmd"
}

proc ::diff_set::dump {key} {
    variable randkeys
    if {$key in $randkeys} { return [list [list raw [list SCARD $key]]] }
    return [list [list raw [list SCARD $key]] [list sort [list SMEMBERS $key]]]
}

rename ::normalize ::diff_set::normalize_next
proc ::normalize {mode reply} {
    lassign $reply raw parsed
    set type [lindex $parsed 0]
    switch -- $mode {
        slen {
            if {$type eq "*"} { return "array of [llength [lindex $parsed 1]]" }
            if {$type eq "\$"} { return "bulk" }
            return $raw
        }
        sscan - sscanfull {
            if {$type ne "*" || [llength [lindex $parsed 1]] != 2} { return $raw }
            lassign [lindex $parsed 1] cursor items
            if {$mode eq "sscan"} { return "scan" }
            return "cursor [lindex $cursor 1] [serialize [list * [lsort [lindex $items 1]]]]"
        }
    }
    return [::diff_set::normalize_next $mode $reply]
}

diff_plugin set 150 ::diff_set::gen
diff_dump ::diff_set::dump
