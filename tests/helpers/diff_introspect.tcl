# diff_introspect.tcl -- differential-test plugin for the introspection
# commands clients send when they connect (sourced by
# tests/integration/differential.tcl, which provides gen_command, pick, rnd,
# rcase, the normalisers norm_info/norm_docs_fields and serialize).
#
# Draws, between the data commands of the stream:
#   * COMMAND GETKEYS / GETKEYSANDFLAGS of a command line the stream itself
#     generates (any type's plugin, wrong arities and unknown commands
#     included), so key extraction is checked on the same variety of lines
#     the servers execute;
#   * COMMAND INFO and COMMAND DOCS of one to three names: commands,
#     subcommands (any case), containers and unknown names.
# The exhaustive version (every command in cairn's COMMAND LIST, a bare
# COMMAND entry by entry) runs once per run in differential.tcl itself.
#
# Reply modes added here, through a wrapper around the base `normalize`:
#   cmdinfo   COMMAND INFO: subcommands sorted by name (Redis lists them in
#             the order of a dict with a per-process random hash seed)
#   cmddocs   COMMAND DOCS: the same, and only the fields cairn returns
#             (summary, since, group, subcommands); cairn has no argument
#             docs, complexity, history or doc flags

namespace eval ::diff_introspect {
    # Only commands cairn implements (Redis would describe the others), and
    # names neither server knows.
    variable names {
        get set mget mset setex getex incrbyfloat lcs del unlink exists expire
        pexpireat ttl keys scan rename copy move object object|encoding
        object|help lpush blmpop lmpop hset hgetall sadd sintercard zadd
        zunionstore zmpop bzmpop setbit bitfield bitfield_ro pfadd pfmerge sort
        sort_ro multi exec watch subscribe ssubscribe publish spublish pubsub
        pubsub|numsub ping echo hello auth quit reset client client|setname
        client|list client|tracking command command|docs command|getkeys config
        config|get config|set info latency slowlog memory memory|usage debug
        cluster cluster|info cluster|slots cluster|help readonly readwrite asking
        select swapdb flushall dbsize
        nosuchcommand get|x client|nosuch "" "config|get|x" "|" "get|"
    }
    variable inner 0
}

proc ::diff_introspect::names {} {
    variable names
    set out {}
    set n [expr {1 + [rnd 3]}]
    for {set i 0} {$i < $n} {incr i} { lappend out [rcase [pick $names]] }
    return $out
}

proc ::diff_introspect::gen {idx} {
    variable inner
    # A line drawn for GETKEYS may draw this plugin again: give it a plain
    # command instead of nesting COMMAND GETKEYS COMMAND GETKEYS ...
    if {$inner} { return [list raw [list [rcase PING]]] }
    switch [rnd 10] {
        0 - 1 - 2 - 3 - 4 - 5 {
            set inner 1
            set line [lindex [gen_command $idx] 1]
            set inner 0
            set sub [pick {GETKEYS GETKEYSANDFLAGS}]
            return [list raw [concat [list [rcase COMMAND] [rcase $sub]] $line]]
        }
        6 - 7 { return [list cmdinfo [concat [list COMMAND [rcase INFO]] [names]]] }
        default { return [list cmddocs [concat [list COMMAND [rcase DOCS]] [names]]] }
    }
}

rename ::normalize ::diff_introspect::normalize_next
proc ::normalize {mode reply} {
    lassign $reply raw parsed
    if {$mode eq "cmdinfo" && [lindex $parsed 0] eq "*"} {
        set out {}
        foreach e [lindex $parsed 1] { lappend out [norm_info $e] }
        return [serialize [list * $out]]
    }
    if {$mode eq "cmddocs" && [lindex $parsed 0] eq "*"} {
        set out {}
        foreach {name m} [lindex $parsed 1] {
            lappend out $name [norm_docs_fields $m {summary since group subcommands}]
        }
        return [serialize [list * $out]]
    }
    return [::diff_introspect::normalize_next $mode $reply]
}

diff_plugin introspect 40 ::diff_introspect::gen
