# introspection.tcl -- COMMAND INFO key specs, tips and the movablekeys
# flag; COMMAND GETKEYS / GETKEYSANDFLAGS for commands whose keys move
# (SORT ... STORE, numkeys commands) or whose key flags depend on the
# arguments (SET ... GET, BITFIELD); COMMAND LIST FILTERBY ACLCAT; and, with
# a reference server, COMMAND INFO of every command byte for byte.

source [file join [file dirname [info script]] .. helpers harness.tcl]

set srv [start_server]
set c [client $srv]

proc cmd_info {c name} { lindex [r $c COMMAND INFO $name] 0 }

test "movablekeys follows the key specs" {
    foreach cmd {sort sort_ro zunionstore zunion zinter zdiff zinterstore zdiffstore
                 zintercard sintercard lmpop blmpop zmpop bzmpop} {
        assert {"movablekeys" in [lindex [cmd_info $c $cmd] 2]} "$cmd is movablekeys"
    }
    foreach cmd {get set mset del lmove rename bitop sdiffstore} {
        assert {"movablekeys" ni [lindex [cmd_info $c $cmd] 2]} "$cmd is not movablekeys"
    }
}

test "COMMAND INFO hides may_replicate and shows tips" {
    assert_equal {pubsub loading stale fast} [lindex [cmd_info $c spublish] 2]
    assert_equal {nondeterministic_output_order} [lindex [cmd_info $c hgetall] 7]
    assert_equal {request_policy:multi_shard response_policy:agg_sum} [lindex [cmd_info $c del] 7]
    assert_equal {} [lindex [cmd_info $c get] 7]
    # blocking commands are in @blocking; containers carry no categories
    assert {"@blocking" in [lindex [cmd_info $c bzpopmin] 6]}
    assert_equal {@slow} [lindex [cmd_info $c client] 6]
}

test "COMMAND INFO key specs" {
    assert_equal {{flags {RW access delete} begin_search {type index spec {index 1}} find_keys {type range spec {lastkey 0 keystep 1 limit 0}}} {flags {RW insert} begin_search {type index spec {index 2}} find_keys {type range spec {lastkey 0 keystep 1 limit 0}}}} \
        [lindex [cmd_info $c lmove] 8]
    assert_equal {{flags {RW access delete} begin_search {type index spec {index 1}} find_keys {type keynum spec {keynumidx 0 firstkey 1 keystep 1}}}} \
        [lindex [cmd_info $c lmpop] 8]
    set specs [lindex [cmd_info $c set] 8]
    assert_equal {RW and ACCESS due to the optional `GET` argument} [dict get [lindex $specs 0] notes]
    assert_equal {RW access update variable_flags} [dict get [lindex $specs 0] flags]
    assert_equal 3 [llength [lindex [cmd_info $c sort] 8]]
    assert_equal {} [lindex [cmd_info $c ping] 8]
    # RESP3: key specs, tips and an empty subcommand list are sets
    r $c HELLO 3
    assert_match "*\$4\r\necho\r\n*~0\r\n~0\r\n~0\r\n" [rraw $c COMMAND INFO echo]
    r $c HELLO 2
}

test "COMMAND GETKEYS SORT finds the last STORE destination" {
    assert_equal {abc def} [r $c COMMAND GETKEYS sort abc store def]
    assert_equal {abc def} [r $c COMMAND GETKEYS sort abc store invalid store stillbad store def]
    # a BY/GET pattern spelled "store" is an argument, not the option
    assert_equal {abc} [r $c COMMAND GETKEYS sort abc get store by store]
    assert_equal {abc} [r $c COMMAND GETKEYS sort_ro abc store def]
    assert_equal {{abc {RO access}} {def {OW update}}} \
        [r $c COMMAND GETKEYSANDFLAGS sort abc limit 0 1 store def]
}

test "COMMAND GETKEYS numkeys commands" {
    assert_equal {dst a b} [r $c COMMAND GETKEYS zunionstore dst 2 a b weights 1 2]
    assert_equal {a b} [r $c COMMAND GETKEYS zinter 2 a b]
    assert_equal {a b} [r $c COMMAND GETKEYS lmpop 2 a b left]
    assert_equal {a b} [r $c COMMAND GETKEYS blmpop 0 2 a b left]
    assert_equal {a b} [r $c COMMAND GETKEYS sintercard 2 a b]
    assert_error "ERR Invalid arguments specified for command" {r $c COMMAND GETKEYS zunionstore dst 0 a}
    assert_error "ERR Invalid arguments specified for command" {r $c COMMAND GETKEYS zunionstore dst 5 a}
    assert_error "ERR Invalid arguments specified for command" {r $c COMMAND GETKEYS zunion x a}
    # A count that is not a clean integer: Redis falls back to atoi, with
    # the destination last and no flags (checked against redis-server).
    assert_equal {a b dst} [r $c COMMAND GETKEYS zunionstore dst 2x a b]
    assert_equal {{a {}} {b {}} {dst {}}} [r $c COMMAND GETKEYSANDFLAGS zinterstore dst 2x a b]
    assert_equal {a b} [r $c COMMAND GETKEYS lmpop 2x a b left]
    assert_equal {a} [r $c COMMAND GETKEYS bzmpop 0 1x a min]
    assert_equal {a b} [r $c COMMAND GETKEYS sintercard 2y a b]
    assert_error "ERR Invalid arguments specified for command" {r $c COMMAND GETKEYS zdiffstore d -1 a}
    assert_error "ERR Invalid arguments specified for command" {r $c COMMAND GETKEYS zinterstore d abc a}
    set keys {}
    for {set i 1} {$i <= 300} {incr i} { lappend keys key$i }
    assert_equal [concat target $keys] [r $c COMMAND GETKEYS zunionstore target 300 {*}$keys]
}

test "COMMAND GETKEYSANDFLAGS" {
    assert_equal {{k1 {OW update}}} [r $c COMMAND GETKEYSANDFLAGS set k1 v1]
    assert_equal {{k1 {RW access update}}} [r $c COMMAND GETKEYSANDFLAGS set k1 v1 get]
    assert_equal {{k {RO access}}} [r $c COMMAND GETKEYSANDFLAGS bitfield k get u8 0]
    assert_equal {{k {RW access update}}} [r $c COMMAND GETKEYSANDFLAGS bitfield k set u8 0 1]
    assert_equal {{a {RW access delete}} {b {RW insert}}} [r $c COMMAND GETKEYSANDFLAGS lmove a b left right]
    assert_equal {{k {RM delete}} {j {RM delete}}} [r $c COMMAND GETKEYSANDFLAGS del k j]
    assert_equal {k} [r $c COMMAND GETKEYS memory usage k]
    assert_error "ERR The command has no key arguments" {r $c COMMAND GETKEYS spublish ch msg}
}

test "COMMAND LIST FILTERBY ACLCAT" {
    set list [r $c COMMAND LIST FILTERBY ACLCAT hyperloglog]
    foreach cmd {pfadd pfcount pfmerge} { assert {$cmd in $list} "$cmd in @hyperloglog" }
    assert {"get" ni $list}
    set list [r $c COMMAND LIST FILTERBY ACLCAT blocking]
    assert {"blpop" in $list && "bzmpop" in $list && "lpush" ni $list}
    assert {"client|kill" in [r $c COMMAND LIST FILTERBY ACLCAT admin]}
    assert_equal {} [r $c COMMAND LIST FILTERBY ACLCAT non_existing_category]
    assert_equal {} [r $c COMMAND LIST FILTERBY MODULE non_existing_module]
    assert_error "ERR syntax error" {r $c COMMAND LIST bad_arg}
}

if {$::cairn(reference) eq ""} {
    skip "COMMAND INFO of every command matches the reference server" "no reference server (CAIRN_REFERENCE)"
} else {
    set ref [start_server -binary $::cairn(reference)]
    set rc [client $ref]
    test "COMMAND INFO of every command matches the reference server" {
        foreach proto {2 3} {
            r $c HELLO $proto
            r $rc HELLO $proto
            foreach name [r $c COMMAND LIST] {
                # Redis 7.2's, newer than the 7.0 reference: integration/waitaof.tcl
                if {$name in {waitaof}} continue
                set info [r $c COMMAND INFO $name]
                set subs [lindex $info 0 9]
                if {[llength $subs]} {
                    # Redis lists subcommands in hash order: compare them one by one.
                    foreach sub $subs {
                        set n [lindex $sub 0]
                        assert_equal [rraw $rc COMMAND INFO $n] [rraw $c COMMAND INFO $n] "COMMAND INFO $n (RESP$proto)"
                    }
                    lset info 0 9 {}
                    set rinfo [r $rc COMMAND INFO $name]
                    lset rinfo 0 9 {}
                    assert_equal $rinfo $info "COMMAND INFO $name (RESP$proto)"
                } else {
                    assert_equal [rraw $rc COMMAND INFO $name] [rraw $c COMMAND INFO $name] "COMMAND INFO $name (RESP$proto)"
                }
            }
        }
        r $c HELLO 2
    }
    stop_server $ref
}

finish
