# diff_list.tcl -- differential-test plugin for lists (sourced by
# tests/integration/differential.tcl, which provides rkey rval rint pick rnd
# one_in rcase).
#
# Random LPUSH RPUSH LPUSHX RPUSHX LPOP RPOP (with and without count) LLEN
# LRANGE LINDEX LSET LINSERT LREM LTRIM LPOS LMOVE RPOPLPUSH LMPOP over
# list keys of our own (l0..l3 mostly) and the shared keyspace (so string
# keys give WRONGTYPE and lists meet RENAME/COPY/MOVE). Elements repeat
# often so pivots, LREM and LPOS find matches; now and then a bulk push of
# a few hundred elements spans several nodes, and a CONFIG SET of
# list-max-listpack-size / list-compress-depth changes how new lists are
# built (tiny nodes, compressed inner nodes) without changing any reply.
# Every reply is compared byte for byte (list order is defined). No
# blocking commands: they could wait. The dumper compares LLEN and the
# whole LRANGE of every key.

namespace eval ::diff_list {
    variable keys [list l0 l1 l2 l3 "l:bin\x00\r\n"]
    variable elems [list a b c a b 1 2 -1 0 01 "" "x y" "bin\x00\xff" 9223372036854775807 \
            -9223372036854775808 [string repeat e 70] [string repeat compressible- 8]]
}

proc ::diff_list::key {} {
    variable keys
    if {[rnd 20] < 14} { return [pick $keys] }
    return [rkey]
}

proc ::diff_list::elem {} {
    variable elems
    if {[rnd 10] < 7} { return [pick $elems] }
    return [rval]
}

proc ::diff_list::elems {min max} {
    set n [expr {$min + [rnd [expr {$max - $min + 1}]]}]
    set out {}
    for {set i 0} {$i < $n} {incr i} { lappend out [elem] }
    return $out
}

# Indexes: mostly inside a small list, sometimes far out or not numbers.
proc ::diff_list::index {} {
    switch [rnd 10] {
        0 - 1 - 2 - 3 { return [rnd 8] }
        4 - 5 - 6 { return [expr {-1 - [rnd 8]}] }
        7 { return [expr {[rnd 400] - 200}] }
        8 { return [pick {9223372036854775807 -9223372036854775808 9223372036854775808}] }
        default { return [rint] }
    }
}

proc ::diff_list::side {} {
    if {[one_in 40]} { return [pick {UP middle "" LEFTT}] }
    return [rcase [pick {LEFT RIGHT}]]
}

proc ::diff_list::count {} {
    switch [rnd 8] {
        0 { return 0 }
        1 { return [pick {-1 abc "" 1.5 9223372036854775807 -9223372036854775808}] }
        default { return [expr {1 + [rnd 6]}] }
    }
}

proc ::diff_list::lpos_options {} {
    set opts {}
    foreach o {RANK COUNT MAXLEN} {
        if {[rnd 3] != 0} continue
        lappend opts [rcase $o]
        if {[one_in 30]} continue   ;# missing value
        switch $o {
            RANK { lappend opts [pick {1 2 3 -1 -2 -3 0 -9223372036854775808 9223372036854775807 x}] }
            COUNT { lappend opts [pick {0 1 2 5 -1 x}] }
            MAXLEN { lappend opts [pick {0 1 3 10 -1 x}] }
        }
    }
    if {[one_in 40]} { lappend opts FOO }
    return $opts
}

proc ::diff_list::gen {idx} {
    set r [rnd 150]
    foreach {limit cmd} {
        22 rpush 38 lpush 42 lpushx 46 rpushx 56 lpop 64 rpop 68 llen 80 lrange
        86 lindex 92 lset 99 linsert 107 lrem 112 ltrim 119 lpos 126 lmove
        130 rpoplpush 137 lmpop 139 bulk 140 config 150 lrange
    } {
        if {$r < $limit} break
    }
    set C [rcase [string toupper $cmd]]
    set k [key]
    switch -- $cmd {
        rpush - lpush { return [list raw [concat [list $C $k] [elems 1 6]]] }
        lpushx - rpushx { return [list raw [concat [list $C $k] [elems 1 3]]] }
        lpop - rpop {
            set argv [list $C $k]
            if {[rnd 2]} { lappend argv [count] }
            if {[one_in 50]} { lappend argv 1 }
            return [list raw $argv]
        }
        llen { return [list raw [list $C $k]] }
        lrange { return [list raw [list $C $k [index] [index]]] }
        lindex { return [list raw [list $C $k [index]]] }
        lset { return [list raw [list $C $k [index] [elem]]] }
        linsert {
            set where [rcase [pick {BEFORE AFTER BEFORE AFTER}]]
            if {[one_in 30]} { set where [pick {MIDDLE ""}] }
            return [list raw [list $C $k $where [elem] [elem]]]
        }
        lrem { return [list raw [list $C $k [pick {0 1 2 -1 -2 5 -5 -9223372036854775808 x}] [elem]]] }
        ltrim { return [list raw [list $C $k [index] [index]]] }
        lpos { return [list raw [concat [list $C $k [elem]] [lpos_options]]] }
        lmove { return [list raw [list $C $k [key] [side] [side]]] }
        rpoplpush { return [list raw [list $C $k [key]]] }
        lmpop {
            set n [expr {1 + [rnd 3]}]
            set keys {}
            for {set i 0} {$i < $n} {incr i} { lappend keys [key] }
            set numkeys $n
            if {[one_in 25]} { set numkeys [pick {0 -1 x 4 9223372036854775807}] }
            set argv [concat [list $C $numkeys] $keys [list [side]]]
            if {[rnd 2]} { lappend argv [rcase COUNT] [count] }
            return [list raw $argv]
        }
        bulk {
            set argv [list [rcase RPUSH] $k]
            set n [expr {100 + [rnd 300]}]
            for {set i 0} {$i < $n} {incr i} {
                lappend argv [pick [list $i "value-$i" [string repeat z [expr {$i % 90}]] [elem]]]
            }
            return [list raw $argv]
        }
        config {
            if {[rnd 2]} {
                return [list raw [list CONFIG SET list-max-listpack-size [pick {1 2 3 5 128 -1 -2 -5}]]]
            }
            return [list raw [list CONFIG SET list-compress-depth [pick {0 0 1 2 3}]]]
        }
    }
}

proc ::diff_list::dump {key} {
    return [list [list raw [list LLEN $key]] [list raw [list LRANGE $key 0 -1]]]
}

diff_plugin list 150 ::diff_list::gen
diff_dump ::diff_list::dump
