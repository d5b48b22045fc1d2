# functions.tcl -- FUNCTION LOAD/DELETE/FLUSH/LIST/DUMP/RESTORE/STATS/KILL
# and FCALL/FCALL_RO: replies and errors byte-equal with redis-server's (the
# load-time sandbox, name rules, register_function's two forms and flags),
# RESP3 shapes, DUMP payloads moving both ways between the two servers, the
# function flags, -BUSY with FUNCTION KILL, and propagation of the commands.

source [file join [file dirname [info script]] .. helpers harness.tcl]

set srv [start_server]
set c [client $srv]
set ref [start_server -binary $::cairn(reference)]
set rc [client $ref]

proc lib {name body} { return "#!lua name=$name\n$body" }

# Each case runs on both servers in order (state builds up); the raw replies
# must be byte-equal.
set cases [list \
    [list FUNCTION LOAD [lib lib1 {redis.register_function('f1', function(keys, args) return redis.call('ping') end)}]] \
    [list FUNCTION LOAD [lib lib2 {redis.call('ping')}]] \
    [list FUNCTION LOAD [lib lib2 {redis.register_function('f2')}]] \
    [list FUNCTION LOAD [lib lib2 {error('boom')}]] \
    [list FUNCTION LOAD [lib lib2 {local x = string.len('a')}]] \
    [list FUNCTION LOAD [lib lib2 {x = 1}]] \
    [list FUNCTION LOAD [lib lib2 {redis.setresp(3)}]] \
    [list FUNCTION LOAD [lib lib2 {redis.register_function{function_name='f3', callback=function() return 1 end, flags={'bad'}}}]] \
    [list FUNCTION LOAD [lib lib2 {redis.register_function{function_name='f3', callback=function() return 1 end, flags={'no-writes', 'ALLOW-OOM'}, description='desc'}}]] \
    [list FUNCTION LOAD [lib lib3 {redis.log(redis.LOG_WARNING, 'hi') return 1}]] \
    [list FUNCTION LOAD "#!lua name=lib3 x=y\nreturn 1"] \
    [list FUNCTION LOAD "#!lua name=a name=b\nreturn 1"] \
    [list FUNCTION LOAD "#!lua\nreturn 1"] \
    [list FUNCTION LOAD "#!lua name=lib3"] \
    [list FUNCTION LOAD "return 1"] \
    [list FUNCTION LOAD [lib lib-3 {return 1}]] \
    [list FUNCTION LOAD "#!js name=lib3\nreturn 1"] \
    [list FUNCTION LOAD [lib lib3 {redis.register_function('f-1', function() end)}]] \
    [list FUNCTION LOAD [lib lib3 {redis.register_function('f1', function() end)}]] \
    [list FUNCTION LOAD [lib lib1 {redis.register_function('f1', function() end)}]] \
    [list FUNCTION LOAD [lib lib3 {redis.register_function('x', function() end) redis.register_function('x', function() end)}]] \
    [list FUNCTION LOAD [lib lib3 {local a = }]] \
    [list FUNCTION LOAD [lib lib3 {redis.register_function('a', 1)}]] \
    [list FUNCTION LOAD [lib lib3 {redis.register_function{function_name='a'}}]] \
    [list FUNCTION LOAD [lib lib3 {redis.register_function{callback=function() end}}]] \
    [list FUNCTION LOAD [lib lib3 {redis.register_function{function_name='a', callback=function() end, foo=1}}]] \
    [list FUNCTION LOAD [lib lib3 {redis.register_function('a', function() end, 3)}]] \
    [list FUNCTION LOAD [lib lib3 {redis.register_function{function_name='a', callback=function() end, flags='x'}}]] \
    [list FUNCTION LOAD [lib lib3 {redis.register_function{function_name='a', callback=3}}]] \
    [list FUNCTION LOAD [lib lib3 {redis.register_function(7, function() return 7 end)}]] \
    [list FCALL 7 0] \
    [list FUNCTION LOAD [lib lib4 {local v = redis.REDIS_VERSION redis.register_function('ver', function() return v end)}]] \
    [list FCALL ver 0] \
    [list FCALL f1 0] \
    [list FCALL nosuch 0] \
    [list FCALL f1 x] \
    [list FCALL f1 2 a] \
    [list FCALL f1 -1] \
    [list FCALL_RO f1 0] \
    [list FCALL_RO f3 0] \
    [list FUNCTION LOAD REPLACE [lib lib1 [join {
        {redis.register_function('f1', function(keys, args) return redis.call('nosuch') end)}
        {redis.register_function('f4', function(keys, args) return {keys[1], args[1], #keys, #args, x} end)}
        {redis.register_function('f5', function(keys, args) redis.register_function('a', function() end) end)}
        {redis.register_function('f7', function(keys, args) error('boom') end)}
        {redis.register_function('f8', function(keys, args) y = 1 end)}
        {redis.register_function('f9', function(keys, args) return redis.call('set', keys[1], args[1]) end)}
        {redis.register_function('f10', function(keys, args) return KEYS end)}
        {redis.register_function{function_name='f11', callback=function(keys) return redis.call('set', keys[1], 'x') end, flags={'no-writes'}}}
        {redis.register_function('f12', function(keys, args) redis.setresp(3) return redis.call('hgetall', keys[1]) end)}
    } \n]]] \
    [list FCALL f1 0] \
    [list FCALL f4 1 k a] \
    [list FCALL f5 0] \
    [list FCALL f7 0] \
    [list FCALL f8 0] \
    [list FCALL f9 1 k v] \
    [list FCALL_RO f9 1 k v] \
    [list FCALL f10 1 k] \
    [list FCALL f11 1 k] \
    [list FCALL f12 1 nohash] \
    [list FUNCTION LOAD REPLACE [lib lib1 {redis.register_function('f3', function() end)}]] \
    [list FCALL f1 0] \
    [list FUNCTION LIST WITHCODE LIBRARYNAME lib2] \
    [list FUNCTION LIST LIBRARYNAME lib3] \
    [list FUNCTION LIST LIBRARYNAME] \
    [list FUNCTION LIST bad] \
    [list FUNCTION LIST WITHCODE LIBRARYNAME lib* WITHCODE] \
    [list FUNCTION STATS x] \
    [list FUNCTION DELETE nosuch] \
    [list FUNCTION DELETE lib3] \
    [list FUNCTION DELETE lib3] \
    [list FUNCTION FLUSH bad] \
    [list FUNCTION FLUSH sync x] \
    [list FUNCTION RESTORE abc] \
    [list FUNCTION RESTORE abc bad] \
    [list FUNCTION RESTORE abc flush x] \
    [list FUNCTION KILL] \
    [list FUNCTION LOAD] \
    [list FUNCTION LOAD REPLACE] \
    [list FUNCTION LOAD bad x] \
    [list FUNCTION HELP] \
    [list FUNCTION nosuch] \
    [list FUNCTION] \
    [list FCALL] \
    [list COMMAND INFO fcall fcall_ro function|load function|delete function|list function|stats function|kill function|restore function|dump function|flush function|help] \
    [list COMMAND GETKEYS fcall f 2 a b c] \
    [list EVAL "return redis.acl_check_cmd('set','a','b')" 0] \
    [list EVAL "return redis.acl_check_cmd('nosuch')" 0] \
    [list EVAL "return redis.acl_check_cmd()" 0] \
    [list EVAL "return redis.acl_check_cmd({})" 0] \
    [list FUNCTION LOAD [lib acl {redis.register_function('acl', function(keys, args) return redis.acl_check_cmd(unpack(args)) end)}]] \
    [list FCALL acl 0 get k] \
]

test "replies and errors are redis-server's, byte for byte" {
    r $c FUNCTION FLUSH
    r $rc FUNCTION FLUSH
    foreach cmd $cases {
        assert_equal [rraw $rc {*}$cmd] [rraw $c {*}$cmd] "reply to $cmd"
    }
}

test "redis.acl_check_cmd answers for the calling user" {
    foreach x [list $c $rc] {
        r $x ACL SETUSER fnuser on nopass +fcall +get ~*
    }
    set u [client $srv]
    set ru [client $ref]
    r $u AUTH fnuser x
    r $ru AUTH fnuser x
    foreach args {{get k} {set k v} {fcall acl 0}} {
        assert_equal [rraw $ru FCALL acl 0 {*}$args] [rraw $u FCALL acl 0 {*}$args] "acl_check_cmd $args"
    }
    assert_equal {1 {}} [list [r $u FCALL acl 0 get k] [r $u FCALL acl 0 set k v]] "true, then false (nil in RESP2)"
    close_client $u
    close_client $ru
}

test "DEBUG SET-DISABLE-DENY-SCRIPTS lets scripts call noscript commands, as Redis' tests use it" {
    foreach x [list $c $rc] {
        r $x FUNCTION LOAD REPLACE [lib deny {redis.register_function('cid', function() return type(redis.call('client', 'id')) end)}]
    }
    assert_equal [rraw $rc FCALL cid 0] [rraw $c FCALL cid 0] "denied"
    foreach x [list $c $rc] { r $x DEBUG SET-DISABLE-DENY-SCRIPTS 1 }
    assert_equal number [r $c FCALL cid 0]
    assert_equal [rraw $rc EVAL "return type(redis.call('client', 'id'))" 0] [rraw $c EVAL "return type(redis.call('client', 'id'))" 0]
    foreach x [list $c $rc] { r $x DEBUG SET-DISABLE-DENY-SCRIPTS 0 }
    assert_equal [rraw $rc FCALL cid 0] [rraw $c FCALL cid 0] "denied again"
}

test "FUNCTION LIST and STATS: the same RESP2 and RESP3 shapes" {
    foreach x [list $c $rc] {
        r $x FUNCTION FLUSH
        r $x FUNCTION LOAD [lib one {redis.register_function{function_name='a', callback=function() return 1 end, flags={'no-writes', 'allow-stale', 'no-cluster', 'allow-cross-slot-keys', 'allow-oom'}, description='d'}}]
    }
    assert_equal [rraw $rc FUNCTION LIST WITHCODE] [rraw $c FUNCTION LIST WITHCODE]
    assert_equal [rraw $rc FUNCTION STATS] [rraw $c FUNCTION STATS]
    set c3 [client $srv]
    set r3 [client $ref]
    r $c3 HELLO 3
    r $r3 HELLO 3
    assert_equal [rraw $r3 FUNCTION LIST WITHCODE] [rraw $c3 FUNCTION LIST WITHCODE]
    assert_equal [rraw $r3 FUNCTION STATS] [rraw $c3 FUNCTION STATS]
    assert_equal [rraw $r3 FCALL a 0] [rraw $c3 FCALL a 0]
    close_client $c3
    close_client $r3
}

test "FUNCTION DUMP payloads restore across the two servers, each policy" {
    foreach x [list $c $rc] { r $x FUNCTION FLUSH }
    set long [string repeat "-- padding so the record is LZF-compressed\n" 5]
    r $rc FUNCTION LOAD [lib fromredis "$long\nredis.register_function('rf', function(k, a) return 'r'..a\[1\] end)"]
    r $c FUNCTION LOAD [lib fromcairn "$long\nredis.register_function('cf', function(k, a) return 'c'..a\[1\] end)"]
    set rd [r $rc FUNCTION DUMP]
    set cd [r $c FUNCTION DUMP]
    assert_equal OK [r $c FUNCTION RESTORE $rd]
    assert_equal OK [r $rc FUNCTION RESTORE $cd]
    assert_equal r1 [r $c FCALL rf 0 1]
    assert_equal c1 [r $rc FCALL cf 0 1]
    # APPEND (the default) refuses a library that exists; REPLACE takes it.
    assert_error "ERR Library fromredis already exists" {r $c FUNCTION RESTORE $rd}
    assert_error "ERR Library fromredis already exists" {r $c FUNCTION RESTORE $rd APPEND}
    assert_equal OK [r $c FUNCTION RESTORE $rd REPLACE]
    assert_equal [lsort [list fromcairn fromredis]] [lsort [lmap l [r $c FUNCTION LIST] {lindex $l 1}]]
    # FLUSH: only the payload's libraries remain.
    assert_equal OK [r $c FUNCTION RESTORE $rd FLUSH]
    assert_equal {fromredis} [lmap l [r $c FUNCTION LIST] {lindex $l 1}]
    r $rc FUNCTION RESTORE $rd FLUSH
    assert_equal [r $rc FUNCTION DUMP] [r $c FUNCTION DUMP] "the same libraries dump to the same bytes"
    # A function name another library holds: refused whole, nothing changes.
    r $rc FUNCTION FLUSH
    r $rc FUNCTION LOAD [lib other {redis.register_function('rf', function() return 0 end)}]
    assert_error "ERR Function rf already exists" {r $c FUNCTION RESTORE [r $rc FUNCTION DUMP]}
    assert_equal {fromredis} [lmap l [r $c FUNCTION LIST] {lindex $l 1}]
    # Corrupt payloads and key payloads are refused as by redis-server.
    set bad [string replace $rd 3 3 [format %c [expr {([scan [string index $rd 3] %c] ^ 1)}]]]
    assert_equal [rraw $rc FUNCTION RESTORE $bad] [rraw $c FUNCTION RESTORE $bad]
    r $c SET k v
    r $rc SET k v
    assert_equal [rraw $rc FUNCTION RESTORE [r $rc DUMP k]] [rraw $c FUNCTION RESTORE [r $c DUMP k]]
    # No libraries: the payload is the footer alone, and restores nothing.
    r $rc FUNCTION FLUSH
    set empty [r $rc FUNCTION DUMP]
    assert_equal 10 [string length $empty]
    assert_equal OK [r $c FUNCTION RESTORE $empty]
    assert_equal {fromredis} [lmap l [r $c FUNCTION LIST] {lindex $l 1}]
}

test "function flags: no-writes, FCALL_RO, allow-oom under maxmemory" {
    r $c FUNCTION FLUSH
    set flagslib [lib flags [join {
        {redis.register_function('w', function(k) return redis.call('set', k[1], 'v') end)}
        {redis.register_function{function_name='ro', callback=function(k) return redis.call('get', k[1]) end, flags={'no-writes'}}}
        {redis.register_function{function_name='oom', callback=function(k) return redis.call('set', k[1], 'v') end, flags={'allow-oom'}}}
    } \n]]
    r $c FUNCTION LOAD $flagslib
    r $rc FUNCTION LOAD REPLACE $flagslib
    assert_equal OK [r $c FCALL w 1 fk]
    assert_equal v [r $c FCALL_RO ro 1 fk]
    assert_error "ERR Can not execute a script with write flag using \*_ro command." {r $c FCALL_RO w 1 fk}
    r $c CONFIG SET maxmemory 1
    # Refused as the command core refuses a write (Redis turns the flags
    # into the command's own), with redis-server's words.
    r $rc CONFIG SET maxmemory 1
    assert_equal [rraw $rc FCALL w 1 fk] [rraw $c FCALL w 1 fk]
    assert_equal [rraw $rc FCALL_RO w 1 fk] [rraw $c FCALL_RO w 1 fk]
    r $rc CONFIG SET maxmemory 0
    assert_error "OOM command not allowed when used memory > 'maxmemory'." {r $c FCALL w 1 fk}
    assert_equal v [r $c FCALL ro 1 fk]
    assert_equal OK [r $c FCALL oom 1 fk] "allow-oom lets its writes run"
    r $c CONFIG SET maxmemory 0
    assert_equal 1 [info_field $c number_of_libraries memory]
    assert_equal 3 [info_field $c number_of_functions memory]
    assert [expr {[info_field $c used_memory_vm_functions memory] > 10000}]
}

test "SCRIPT FLUSH leaves functions; FUNCTION FLUSH leaves the script cache" {
    set sha [r $c SCRIPT LOAD "return 1"]
    assert_equal OK [r $c SCRIPT FLUSH]
    assert_equal v [r $c FCALL ro 1 fk]
    r $c SCRIPT LOAD "return 1"
    assert_equal OK [r $c FUNCTION FLUSH ASYNC]
    assert_equal {1} [r $c SCRIPT EXISTS $sha]
    assert_error "ERR Function not found" {r $c FCALL ro 1 fk}
}

test "a long function: -BUSY naming FUNCTION KILL, STATS shows it, KILL ends it" {
    r $c CONFIG SET busy-reply-threshold 100
    r $c FUNCTION LOAD REPLACE [lib busy [join {
        {redis.register_function{function_name='spin', callback=function() local i = 0 while true do i = i + 1 end end, flags={'no-writes'}}}
        {redis.register_function('wspin', function() redis.call('set', 'bw', 1) local i = 0 while i < 30000000 do i = i + 1 end return i end)}
    } \n]]
    set long [client $srv]
    send_cmd $long FCALL spin 0
    set other [client $srv]
    wait_for {[catch {r $other PING} e] && [string match BUSY* $e]} 5000 "BUSY reply"
    assert_error "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE." {r $other GET a}
    set stats [r $other FUNCTION STATS]
    assert_equal spin [dict get [lindex $stats 1] name]
    assert_equal {FCALL spin 0} [dict get [lindex $stats 1] command]
    assert_error "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE." {r $other SCRIPT KILL}
    assert_equal OK [r $other FUNCTION KILL]
    assert_error "ERR Script killed by user with SCRIPT KILL... script: spin, on @user_function:*" {read_reply $long}
    assert_equal PONG [r $other PING]
    assert_error "NOTBUSY No scripts in execution right now." {r $other FUNCTION KILL}
    # One that wrote cannot be killed; an EVAL cannot be killed by FUNCTION KILL.
    send_cmd $long FCALL wspin 0
    wait_for {[catch {r $other PING} e] && [string match BUSY* $e]} 5000 "BUSY reply"
    assert_error "UNKILLABLE Sorry the script already executed write commands*" {r $other FUNCTION KILL}
    assert_equal 30000000 [read_reply $long]
    send_cmd $long EVAL "local i = 0 while true do i = i + 1 end" 0
    wait_for {[catch {r $other PING} e] && [string match BUSY* $e]} 5000 "BUSY reply"
    assert_error "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE." {r $other FUNCTION KILL}
    assert_error "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE." {r $other FUNCTION STATS}
    assert_equal OK [r $other SCRIPT KILL]
    catch {read_reply $long}
    r $c CONFIG SET busy-reply-threshold 5000
    close_client $long
    close_client $other
}

test "a client blocked on a key a busy function pushes to waits for the function's end" {
    r $c CONFIG SET busy-reply-threshold 50
    r $c DEL bl
    r $c FUNCTION LOAD REPLACE [lib blk {redis.register_function('pushwait', function(keys)
        redis.call('lpush', keys[1], 'y')
        local t = redis.call('time')
        local start = t[1] * 1000000 + t[2]
        repeat t = redis.call('time') until t[1] * 1000000 + t[2] > start + 400000
        redis.call('lpush', keys[1], 'z')
        return 1
    end)}]
    set blocked [client $srv]
    send_cmd $blocked BLPOP bl 0
    wait_for {[info_field $c blocked_clients clients] == 1} 5000 "BLPOP blocked"
    set long [client $srv]
    send_cmd $long FCALL pushwait 1 bl
    set other [client $srv]
    wait_for {[catch {r $other PING} e] && [string match BUSY* $e]} 5000 "BUSY reply"
    assert_equal 1 [read_reply $long]
    assert_equal {bl z} [read_reply $blocked] "served with the state the function left"
    assert_equal {y} [r $c LRANGE bl 0 -1]
    r $c CONFIG SET busy-reply-threshold 5000
    foreach x [list $blocked $long $other] { close_client $x }
}

test "FUNCTION writes propagate as sent; FCALL propagates its effects" {
    r $c FUNCTION FLUSH
    r $c DEBUG PROPAGATED
    set code [lib prop {redis.register_function('p', function(k) redis.call('set', k[1], 'a') redis.call('incr', k[2]) return 1 end)}]
    r $c FUNCTION LOAD $code
    assert_match "*FUNCTION*LOAD*register_function*" [r $c DEBUG PROPAGATED]
    r $c FCALL p 2 pa pb
    set got [r $c DEBUG PROPAGATED]
    assert_match "*MULTI*set*pa*incr*pb*EXEC*" $got
    assert_equal 0 [string match *FCALL* $got]
    catch {r $c FUNCTION LOAD $code}
    assert_equal "" [r $c DEBUG PROPAGATED] "a refused load is not propagated"
    r $c FUNCTION DELETE prop
    assert_match "*FUNCTION*DELETE*prop*" [r $c DEBUG PROPAGATED]
    r $c FUNCTION RESTORE [r $c FUNCTION DUMP]
    assert_match "*FUNCTION*RESTORE*" [r $c DEBUG PROPAGATED]
    r $c FUNCTION FLUSH
    assert_match "*FUNCTION*FLUSH*" [r $c DEBUG PROPAGATED]
}

test "MONITOR shows the FCALL first, then its commands from 'lua'" {
    r $c FUNCTION LOAD [lib mon {redis.register_function('m', function() return redis.call('set', 'mon', '1') end)}]
    set m [client $srv]
    assert_equal OK [r $m MONITOR]
    r $c FCALL m 0
    assert_match {*"FCALL" "m" "0"} [read_reply $m]
    assert_match {* lua\] "set" "mon" "1"} [read_reply $m]
    close_client $m
}

test "INFO memory counts the libraries: used_memory_functions, number_of_functions/libraries (both servers)" {
    foreach conn [list $c $rc] {
        r $conn FUNCTION FLUSH
        set empty [info_field $conn used_memory_functions memory]
        assert_equal 0 [info_field $conn number_of_functions memory]
        assert_equal 0 [info_field $conn number_of_libraries memory]
        set body ""
        for {set i 0} {$i < 20} {incr i} {
            append body "redis.register_function{function_name='mf$i', callback=function() return $i end, description='function number $i'}\n"
        }
        r $conn FUNCTION LOAD [lib memlib $body]
        r $conn FUNCTION LOAD [lib memlib2 {redis.register_function('one', function() return 1 end)}]
        assert_equal 21 [info_field $conn number_of_functions memory]
        assert_equal 2 [info_field $conn number_of_libraries memory]
        set full [info_field $conn used_memory_functions memory]
        assert {$full > $empty + 20 * 40} "used_memory_functions $empty -> $full"
        assert {[info_field $conn used_memory_vm_functions memory] > 0}
        assert_equal [expr {[info_field $conn used_memory_scripts_eval memory] + $full}] [info_field $conn used_memory_scripts memory]
        set stats [r $conn FUNCTION STATS]
        assert_equal {libraries_count 2 functions_count 21} [dict get [dict get $stats engines] LUA]
        r $conn FUNCTION DELETE memlib
        assert {[info_field $conn used_memory_functions memory] < $full}
        assert_equal 1 [info_field $conn number_of_functions memory]
        r $conn FUNCTION FLUSH
        assert_equal $empty [info_field $conn used_memory_functions memory]
    }
}

test "FUNCTION FLUSH ASYNC frees the old state on the lazy-free thread; SYNC at once (both servers)" {
    set body ""
    for {set i 0} {$i < 100} {incr i} { append body "redis.register_function('af$i', function() return $i end)\n" }
    foreach conn [list $c $rc] {
        r $conn FUNCTION FLUSH SYNC
        r $conn CONFIG RESETSTAT
        r $conn FUNCTION LOAD [lib asynclib $body]
        assert_equal OK [r $conn FUNCTION FLUSH ASYNC]
        wait_for {[info_field $conn lazyfreed_objects memory] == 100} 5000 "lazyfreed_objects"
        assert_equal 0 [info_field $conn number_of_functions memory]
        r $conn FUNCTION LOAD [lib asynclib $body]
        assert_equal OK [r $conn FUNCTION FLUSH SYNC]
        assert_equal 100 [info_field $conn lazyfreed_objects memory]
        r $conn CONFIG SET lazyfree-lazy-user-flush yes
        r $conn FUNCTION LOAD [lib asynclib $body]
        assert_equal OK [r $conn FUNCTION FLUSH]
        wait_for {[info_field $conn lazyfreed_objects memory] == 200} 5000 "lazyfreed_objects"
        r $conn CONFIG SET lazyfree-lazy-user-flush no
        r $conn FUNCTION LOAD [lib asynclib $body]
        assert_equal 7 [r $conn FCALL af7 0] "functions run in the new state"
        assert_equal OK [r $conn FUNCTION FLUSH]
        assert_equal 200 [info_field $conn lazyfreed_objects memory]
    }
}

finish
