# diff_hash.tcl -- differential-test plugin for hashes (sourced by
# tests/integration/differential.tcl, which provides rkey rval rint rfloat
# pick rnd one_in rcase and the ::patterns list).
#
# Random HSET HMSET HSETNX HGET HMGET HDEL HLEN HSTRLEN HEXISTS HKEYS HVALS
# HGETALL HINCRBY HINCRBYFLOAT HRANDFIELD HSCAN, mostly on keys of our own
# (h0..h3, so hashes live long enough to grow) and sometimes on the shared
# keys (WRONGTYPE; hashes meet RENAME/COPY/MOVE), with field names that
# collide often, long names and values that force the hashtable encoding,
# and now and then a bulk HSET that crosses the 512-entry threshold. The
# dataset check compares HLEN and HGETALL of every key (OBJECT ENCODING is
# compared by the base).
#
# Reply modes added here (the base only knows raw/sort/sec/ms), through a
# wrapper around the base `normalize` proc:
#   hpairs     HGETALL: field/value pairs sorted (hashtable order is
#              implementation-defined; listpack order is checked by
#              tests/unit/type_hash.tcl)
#   hrand      HRANDFIELD: random, so only the reply type and element count
#   hscan      HSCAN with a small COUNT: how much a hashtable step returns
#              depends on the table layout, so only the shape is compared
#   hscanfull  HSCAN 0 with a huge COUNT finishes in one call on both
#              servers: cursor and sorted pairs are compared

namespace eval ::diff_hash {
    variable fields [list f0 f1 f2 f3 f4 f5 f6 f7 "" "a b" 1 -1 007 0 123 \
            "bin\x00\r\nf\xff" 12345678901234567890 9223372036854775807 \
            [string repeat F 64] [string repeat G 65] "caf\xc3\xa9"]
    variable hot {f0 f1 f2 f3 f4}
    variable keys [list h0 h1 h2 h3 "h:bin\x00\r\n"]
}

proc ::diff_hash::key {} {
    variable keys
    if {[rnd 20] < 13} { return [pick $keys] }
    return [rkey]
}

proc ::diff_hash::field {} {
    variable fields
    variable hot
    if {[rnd 10] < 6} { return [pick $hot] }
    return [pick $fields]
}

proc ::diff_hash::fields {min max} {
    set n [expr {$min + [rnd [expr {$max - $min + 1}]]}]
    set out {}
    for {set i 0} {$i < $n} {incr i} { lappend out [field] }
    return $out
}

# Values: the shared generator (ints, floats, binary, 44..165-byte strings)
# plus values that HINCRBY/HINCRBYFLOAT like.
proc ::diff_hash::value {} {
    switch [rnd 8] {
        0 { return [expr {[rnd 100] - 20}] }
        1 { return [pick {1.5 -0.25 1e3 9223372036854775807 -9223372036854775808 " 1" 007}] }
        default { return [rval] }
    }
}

# HRANDFIELD counts. Huge negative counts only with WITHVALUES (where they
# are a range error): without it Redis would try to send them all.
proc ::diff_hash::randcount {withvalues} {
    set r [rnd 12]
    if {$r < 6} { return [pick {0 1 2 3 5 -1 -2 -3 -5 -30 7 100 1000}] }
    if {$r < 9} { return [expr {[rnd 21] - 10}] }
    if {$r < 10} { return [pick {9223372036854775807 4611686018427387903 4611686018427387904}] }
    if {$r < 11 && $withvalues} {
        return [pick {-9223372036854775808 -9223372036854775807 -4611686018427387904}]
    }
    if {$r < 11} { return -9223372036854775808 }
    return [pick {abc 1.5 "" " 1" 9223372036854775808}]
}

proc ::diff_hash::scanopts {} {
    set opts {}
    foreach o [rshuffle {MATCH COUNT}] {
        if {[rnd 3] == 0} continue
        lappend opts [rcase $o]
        if {[one_in 30]} continue   ;# missing value
        if {$o eq "MATCH"} {
            lappend opts [pick [concat $::patterns [list f* f? *1* {f[0-3]} 1* -? * "*\x00*"]]]
        } else {
            lappend opts [pick {1 2 5 10 20 0 -1 abc}]
        }
    }
    if {[one_in 25]} { lappend opts [pick {TYPE FOO}] string }
    return $opts
}

proc ::diff_hash::gen {idx} {
    set r [rnd 150]
    foreach {limit cmd} {
        28 hset 34 hmset 42 hsetnx 56 hget 63 hmget 75 hdel 81 hlen 86 hstrlen
        91 hexists 95 hkeys 99 hvals 107 hgetall 119 hincrby 129 hincrbyfloat
        137 hrandfield 145 hscan 146 bulk 150 arity
    } {
        if {$r < $limit} break
    }
    set C [rcase [string toupper $cmd]]
    set k [key]
    switch -- $cmd {
        hset - hmset {
            set argv [list $C $k]
            set n [expr {1 + [rnd 3]}]
            for {set i 0} {$i < $n} {incr i} { lappend argv [field] [value] }
            if {[one_in 20]} { lappend argv [field] }   ;# odd count: arity error
            return [list raw $argv]
        }
        hsetnx { return [list raw [list $C $k [field] [value]]] }
        hget - hstrlen - hexists { return [list raw [list $C $k [field]]] }
        hmget { return [list raw [concat [list $C $k] [fields 1 4]]] }
        hdel { return [list raw [concat [list $C $k] [fields 1 3]]] }
        hlen { return [list raw [list $C $k]] }
        hkeys - hvals { return [list sort [list $C $k]] }
        hgetall { return [list hpairs [list $C $k]] }
        hincrby {
            set incr [expr {[rnd 3] ? [expr {[rnd 41] - 20}] : [rint]}]
            return [list raw [list $C $k [field] $incr]]
        }
        hincrbyfloat { return [list raw [list $C $k [field] [rfloat]]] }
        hrandfield {
            set argv [list $C $k]
            set wv [rnd 2]
            if {[rnd 4]} {
                lappend argv [randcount $wv]
                if {$wv} { lappend argv [rcase WITHVALUES] }
                if {[one_in 25]} { lappend argv [pick {WITHVALUE FOO WITHVALUES}] }
            }
            return [list hrand $argv]
        }
        hscan {
            if {[rnd 3] == 0} {
                set argv [list $C $k 0 [rcase COUNT] 100000]
                if {[rnd 2]} { lappend argv [rcase MATCH] [pick {f* *1* {f[0-3]} * 1*}] }
                return [list hscanfull $argv]
            }
            set cursor [pick {0 0 0 0 1 7 abc -1 18446744073709551616 " 0"}]
            return [list hscan [concat [list $C $k $cursor] [scanopts]]]
        }
        bulk {
            # Many fields at once: around the 512-entry conversion threshold.
            set n [expr {480 + [rnd 60]}]
            set argv [list [rcase HSET] $k]
            set base [rnd 40]
            for {set i 0} {$i < $n} {incr i} { lappend argv m[expr {$base + $i}] [expr {$i % 7}] }
            return [list raw $argv]
        }
        arity {
            return [list raw [pick [list [list HSET $k] [list HSET $k a] [list HMSET $k a 1 b] \
                    [list HGET $k] [list HSETNX $k a] [list HINCRBY $k a] [list HGETALL] \
                    [list HKEYS $k a] [list HRANDFIELD] [list HSCAN $k] [list HDEL $k] \
                    [list HSTRLEN $k] [list HINCRBYFLOAT $k a 1 2] [list HMGET $k]]]]
        }
    }
    error "diff_hash: unhandled command $cmd"
}

proc ::diff_hash::dump {key} {
    return [list [list raw [list HLEN $key]] [list hpairs [list HGETALL $key]]]
}

# Pairs of a flat array, sorted, serialised back.
proc ::diff_hash::sorted_pairs {elems} {
    set pairs {}
    foreach {f v} $elems { lappend pairs [list $f $v] }
    set out {}
    foreach p [lsort $pairs] { lappend out {*}$p }
    return [serialize [list * $out]]
}

rename ::normalize ::diff_hash::normalize_next
proc ::normalize {mode reply} {
    lassign $reply raw parsed
    set type [lindex $parsed 0]
    switch -- $mode {
        hpairs {
            if {$type eq "*"} { return [::diff_hash::sorted_pairs [lindex $parsed 1]] }
            return $raw
        }
        hrand {
            if {$type eq "*"} { return "array of [llength [lindex $parsed 1]]" }
            if {$type eq "\$"} { return "bulk" }
            return $raw
        }
        hscan - hscanfull {
            if {$type ne "*" || [llength [lindex $parsed 1]] != 2} { return $raw }
            lassign [lindex $parsed 1] cursor items
            set items [lindex $items 1]
            if {$mode eq "hscan"} { return "scan, [expr {[llength $items] % 2}] odd" }
            return "cursor [lindex $cursor 1] [::diff_hash::sorted_pairs $items]"
        }
    }
    return [::diff_hash::normalize_next $mode $reply]
}

diff_plugin hash 150 ::diff_hash::gen
diff_dump ::diff_hash::dump
