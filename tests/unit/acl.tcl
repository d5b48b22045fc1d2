# acl.tcl -- ACL users and rules: every kind of rule allowing and denying,
# a user held to ~cache:* through single-key, multi-key, movable-key
# commands, SORT BY/GET and MULTI/EXEC; the checks at EXEC; ACL LOG
# reasons and grouping; ACL SAVE/LOAD and the `user` directive;
# requirepass as the default user's password; AUTH, HELLO AUTH, RESET;
# disconnecting clients of deleted users and revoked channels; replication
# through masteruser/masterauth; and, with a reference server, the replies
# of a script of ACL commands side by side.

source [file join [file dirname [info script]] .. helpers harness.tcl]

set srv [start_server]
set c [client $srv]

# A fresh connection authenticated as user/pass.
proc as_user {srv user pass} {
    set x [client $srv]
    assert_equal OK [r $x AUTH $user $pass]
    return $x
}

proc noperm_cmd {name} { return "NOPERM this user has no permissions to run the '$name' command" }
set noperm_key "NOPERM this user has no permissions to access one of the keys used as arguments"
set noperm_chan "NOPERM this user has no permissions to access one of the channels used as arguments"

test "default user, ACL LIST and WHOAMI" {
    assert_equal {{user default on nopass ~* &* +@all}} [r $c ACL LIST]
    assert_equal default [r $c ACL WHOAMI]
    assert_equal {default} [r $c ACL USERS]
}

test "on/off, nopass, passwords by text and by hash, resetpass" {
    r $c ACL SETUSER u1 on >pw1 >pw2 +@all ~*
    set x [client $srv]
    assert_equal OK [r $x AUTH u1 pw1]
    assert_equal OK [r $x AUTH u1 pw2]
    assert_error "WRONGPASS*" {r $x AUTH u1 nope}
    r $c ACL SETUSER u1 <pw1
    assert_error "WRONGPASS*" {r $x AUTH u1 pw1}
    # the SHA-256 of "pw3" in hex
    set h [exec sh -c {printf pw3 | sha256sum | cut -d' ' -f1}]
    r $c ACL SETUSER u1 #$h
    assert_equal OK [r $x AUTH u1 pw3]
    assert {$h in [dict get [r $c ACL GETUSER u1] passwords]}
    r $c ACL SETUSER u1 !$h
    assert_error "WRONGPASS*" {r $x AUTH u1 pw3}
    r $c ACL SETUSER u1 off
    assert_error "WRONGPASS*" {r $x AUTH u1 pw2}
    r $c ACL SETUSER u1 on nopass
    assert_equal OK [r $x AUTH u1 anything]
    r $c ACL SETUSER u1 resetpass
    assert_error "WRONGPASS*" {r $x AUTH u1 anything}
    assert_error "*The password you are trying to remove from the user does not exist" {r $c ACL SETUSER u1 <nope}
    assert_error "*exactly 64 characters*" {r $c ACL SETUSER u1 #abc}
    assert_error "WRONGPASS*" {r $x AUTH nosuchuser x}
    r $c ACL DELUSER u1
}

test "commands, categories, subcommands and first arguments" {
    r $c ACL SETUSER u2 on nopass ~* -@all +@string -append +client|id +select|0
    set x [as_user $srv u2 x]
    assert_equal OK [r $x SET k v]
    assert_equal v [r $x GET k]
    assert_error [noperm_cmd append] {r $x APPEND k v}
    assert_error [noperm_cmd lpush] {r $x LPUSH l a}
    assert {[r $x CLIENT ID] > 0}
    assert_error [noperm_cmd client|kill] {r $x CLIENT KILL ID 1}
    assert_equal OK [r $x SELECT 0]
    assert_error [noperm_cmd select] {r $x SELECT 1}
    # a removed category takes its commands away; a readded command is back
    r $c ACL SETUSER u2 -@write +set
    assert_equal OK [r $x SET k v]
    assert_error [noperm_cmd incr] {r $x INCR n}
    r $c ACL SETUSER u2 allcommands
    assert_equal 1 [r $x LPUSH l a]
    r $c ACL SETUSER u2 nocommands
    assert_error [noperm_cmd get] {r $x GET k}
    # AUTH, HELLO and the other no-auth commands stay allowed
    assert_equal OK [r $x AUTH u2 x]
    assert_error "*Unknown command or category name in ACL" {r $c ACL SETUSER u2 +nosuch}
    assert_error "*Unknown command or category name in ACL" {r $c ACL SETUSER u2 +@nosuch}
    assert_error "*Allowing first-arg of a subcommand is not supported" {r $c ACL SETUSER u2 +config|get|x}
    assert_error "*Syntax error" {r $c ACL SETUSER u2 bogus}
    # a failed SETUSER changes nothing
    set before [r $c ACL GETUSER u2]
    catch {r $c ACL SETUSER u2 +get bogus}
    assert_equal $before [r $c ACL GETUSER u2]
    r $c ACL DELUSER u2
}

test "key patterns: ~, %R~, %W~, allkeys, resetkeys" {
    r $c ACL SETUSER u3 on nopass +@all ~a:* %R~r:* %W~w:*
    set x [as_user $srv u3 x]
    assert_equal OK [r $x SET a:1 v]
    assert_equal v [r $x GET a:1]
    assert_error $::noperm_key {r $x SET r:1 v}
    assert_equal {} [r $x GET r:1]
    assert_equal OK [r $x SET w:1 v]
    assert_error $::noperm_key {r $x GET w:1}
    # COPY reads its source and writes its destination
    assert_equal 1 [r $x COPY a:1 w:2]
    assert_error $::noperm_key {r $x COPY w:1 a:2}
    r $c ACL SETUSER u3 resetkeys
    assert_error $::noperm_key {r $x GET a:1}
    r $c ACL SETUSER u3 allkeys
    r $c SET r:1 v
    assert_equal v [r $x GET r:1]
    assert_error "*Adding a pattern after the * pattern (or the 'allkeys' flag)*" {r $c ACL SETUSER u3 ~x}
    r $c ACL DELUSER u3
}

test "channel patterns: &, allchannels, resetchannels" {
    r $c ACL SETUSER u4 on nopass +@all ~* resetchannels &news.*
    set x [as_user $srv u4 x]
    assert_equal 0 [r $x PUBLISH news.1 hi]
    assert_error $::noperm_chan {r $x PUBLISH other hi}
    assert_error $::noperm_chan {r $x SUBSCRIBE news.1 other}
    # a pattern subscription must name an allowed pattern literally
    assert_error $::noperm_chan {r $x PSUBSCRIBE news.1*}
    r $c ACL SETUSER u4 allchannels
    assert_equal 0 [r $x PUBLISH other hi]
    assert_error "*(or the 'allchannels' flag)*" {r $c ACL SETUSER u4 &x}
    r $c ACL DELUSER u4
    # acl-pubsub-default: what new users, selectors and "reset" start with
    r $c CONFIG SET acl-pubsub-default allchannels
    r $c ACL SETUSER u6 {(~x)}
    r $c ACL SETUSER u7 reset
    assert_equal {{user u6 off &* -@all (~x &* -@all)} {user u7 off sanitize-payload &* -@all}} \
        [lsearch -all -inline [r $c ACL LIST] "user u\[67\] *"]
    r $c CONFIG SET acl-pubsub-default resetchannels
    r $c ACL SETUSER u8
    assert_equal {user u8 off resetchannels -@all} [lsearch -inline [r $c ACL LIST] "user u8 *"]
    r $c ACL DELUSER u6 u7 u8
}

test "selectors: a command is allowed if any selector allows it" {
    r $c ACL SETUSER u5 on nopass -@all +get ~a* {(+set ~b*)} {(+@read %R~c*)}
    set x [as_user $srv u5 x]
    r $c SET a1 1
    r $c SET c1 1
    assert_equal 1 [r $x GET a1]
    assert_equal 1 [r $x GET c1]
    assert_equal OK [r $x SET b1 2]
    assert_error $::noperm_key {r $x SET a1 2}
    assert_error [noperm_cmd del] {r $x DEL a1}
    assert_equal {user u5 on nopass ~a* resetchannels -@all +get (~b* resetchannels -@all +set) (%R~c* resetchannels -@all +@read)} \
        [lindex [r $c ACL LIST] end]
    r $c ACL SETUSER u5 clearselectors
    assert_error $::noperm_key {r $x GET c1}
    assert_error "*Unmatched parenthesis*" {r $c ACL SETUSER u5 (~x}
    r $c ACL SETUSER u5 reset
    assert_equal {user u5 off sanitize-payload resetchannels -@all} [lindex [r $c ACL LIST] end]
    r $c ACL DELUSER u5
}

test "a user held to ~cache:* reaches no other key through any command" {
    r $c ACL SETUSER cache on >pw +@all -@admin ~cache:* &*
    r $c RPUSH cache:l 3 1 2
    r $c MSET w_1 3 w_2 2 w_3 1
    set x [as_user $srv cache pw]
    assert_equal OK [r $x SET cache:a 1]
    assert_equal {1 {}} [r $x MGET cache:a cache:b]
    set denied {
        {GET other} {SET other 1} {MGET cache:a other} {MSET cache:a 1 other 2}
        {MSETNX other 1 cache:a 2} {DEL cache:a other} {EXISTS other} {UNLINK other}
        {RENAME cache:a other} {RENAME other cache:a} {COPY cache:a other} {COPY other cache:x}
        {LMOVE cache:l other LEFT LEFT} {RPOPLPUSH other cache:l} {SMOVE other cache:s m}
        {SUNIONSTORE cache:d cache:s other} {SINTERSTORE other cache:s}
        {ZUNIONSTORE cache:d 2 cache:z other} {ZINTERSTORE other 1 cache:z}
        {ZUNION 2 cache:z other} {ZDIFF 2 other cache:z} {SINTERCARD 2 cache:s other}
        {LMPOP 2 cache:l other LEFT} {ZMPOP 1 other MIN} {BLMPOP 0.01 2 cache:l other LEFT}
        {BZMPOP 0.01 1 other MIN} {BLPOP other 0.01} {BITOP AND cache:d cache:a other}
        {PFMERGE cache:h other} {PFCOUNT cache:h other} {GETDEL other} {GETEX other}
        {EXPIRE other 10} {TTL other} {TOUCH other} {TYPE other} {OBJECT ENCODING other}
        {DUMP other} {APPEND other x} {INCR other} {HSET other f v} {SADD other m}
        {ZADD other 1 m} {SORT other} {SORT cache:l STORE other} {SORT_RO other}
        {LCS cache:a other} {SMISMEMBER other a} {GEOADD other 1 1 m} {XADD other * a 1}
        {WATCH other}
    }
    foreach cmd $denied {
        if {[catch {r $x {*}$cmd} err]} {
            # commands cairn does not have yet fail as unknown, not as allowed
            if {[string match "ERR unknown command*" $err]} continue
            assert_equal $::noperm_key $err "$cmd"
        } else {
            error "$cmd was allowed: $err"
        }
    }
    # SORT BY/GET patterns reach keys nobody can list in advance
    assert_error "ERR BY option of SORT denied due to insufficient ACL permissions." {r $x SORT cache:l BY w_*}
    assert_error "ERR GET option of SORT denied due to insufficient ACL permissions." {r $x SORT cache:l GET #}
    # a BY without '*' is only "don't sort"
    assert_equal {3 1 2} [r $x SORT cache:l BY nosort]
    # and inside a transaction the command is refused when queued
    assert_equal OK [r $x MULTI]
    assert_error $::noperm_key {r $x GET other}
    assert_error "EXECABORT*" {r $x EXEC}
    # a user with every key readable may use the patterns
    r $c ACL SETUSER cache %R~*
    assert_equal {3 2 1} [r $x SORT cache:l BY w_*]
    assert_equal {} [r $c GET other]
}

test "rules are checked again at EXEC" {
    r $c ACL SETUSER ex on nopass +@all ~ex:*
    set x [as_user $srv ex x]
    r $x MULTI
    r $x SET ex:1 a
    r $x INCR ex:2
    r $c ACL SETUSER ex resetkeys ~ex:2 -incr
    set res [r $x EXEC]
    assert_match "NOPERM ACLs rules changed between the moment the transaction was accumulated and the EXEC call. This command is no longer allowed for the following reason: no permission to touch the specified keys" [lindex $res 0]
    assert_match "*reason: no permission to execute the command or subcommand" [lindex $res 1]
    assert_equal {} [r $c GET ex:1]
    set e [lindex [r $c ACL LOG 1] 0]
    assert_equal multi [dict get $e context]
    r $c ACL DELUSER ex
}

test "ACL LOG: reasons, objects, grouping and RESET" {
    r $c ACL LOG RESET
    r $c ACL SETUSER lg on >p +get ~k* resetchannels &c
    set x [as_user $srv lg p]
    catch {r $x SET k1 v}
    catch {r $x GET other}
    catch {r $x GET other}
    catch {r $x PUBLISH d hi}
    r $c ACL SETUSER lg +publish
    catch {r $x PUBLISH d hi}
    catch {r $x AUTH lg wrong}
    set log [r $c ACL LOG]
    assert_equal 5 [llength $log]
    set e [lindex $log 0]
    assert_equal {count reason context object username age-seconds client-info} [dict keys $e]
    assert_equal {auth AUTH lg} [list [dict get $e reason] [dict get $e object] [dict get $e username]]
    assert_equal {channel d} [list [dict get [lindex $log 1] reason] [dict get [lindex $log 1] object]]
    assert_equal {command publish} [list [dict get [lindex $log 2] reason] [dict get [lindex $log 2] object]]
    set e [lindex $log 3]
    assert_equal {key other 2} [list [dict get $e reason] [dict get $e object] [dict get $e count]]
    assert_match "*user=lg*" [dict get $e client-info]
    assert_equal toplevel [dict get $e context]
    assert_equal {command set} [list [dict get [lindex $log 4] reason] [dict get [lindex $log 4] object]]
    assert_equal 2 [llength [r $c ACL LOG 2]]
    assert_equal OK [r $c ACL LOG RESET]
    assert_equal {} [r $c ACL LOG]
    r $c CONFIG SET acllog-max-len 2
    foreach k {a1 a2 a3} { catch {r $x GET $k} }
    assert_equal 2 [llength [r $c ACL LOG]]
    r $c CONFIG SET acllog-max-len 128
    r $c ACL DELUSER lg
}

test "A user declared twice at start-up (default too) is refused" {
    foreach name {foo default} {
        set rc [catch {exec $::cairn(server) --port 0 --user $name on --user $name off 2>@1} out]
        assert_equal 1 $rc "the server started with two '$name' users"
        assert_match "*Error in user declaration '$name': Duplicate user found. A user can only be defined once in config files*" $out
    }
}

test "ACL LOG inside a script: context lua, the script's command and key as object" {
    r $c ACL LOG RESET
    r $c ACL SETUSER ls on >p +eval +get +mget -incr ~obj*
    set x [as_user $srv ls p]
    assert_error "*can't run this command*" {r $x EVAL {return redis.call('incr','obj1')} 0}
    # the denied key is the script command's fourth argument: EVAL has three
    assert_error "*can't access at least one of the keys*" {r $x EVAL {return redis.call('mget','obj1','obj2','secret')} 0}
    assert_error "*can't access at least one of the keys*" {r $x EVAL {return redis.call('get','nope')} 0}
    set log [r $c ACL LOG]
    assert_equal 3 [llength $log]
    assert_equal {key lua secret} [list [dict get [lindex $log 1] reason] [dict get [lindex $log 1] context] [dict get [lindex $log 1] object]]
    assert_equal {key lua nope} [list [dict get [lindex $log 0] reason] [dict get [lindex $log 0] context] [dict get [lindex $log 0] object]]
    assert_equal {command lua incr ls} [list [dict get [lindex $log 2] reason] [dict get [lindex $log 2] context] \
        [dict get [lindex $log 2] object] [dict get [lindex $log 2] username]]
    close_client $x
    r $c ACL DELUSER ls
}

test "ACL DRYRUN, CAT, GENPASS, GETUSER" {
    r $c ACL SETUSER dr on nopass +get ~a*
    assert_equal OK [r $c ACL DRYRUN dr get abc]
    assert_equal "This user has no permissions to access the 'b' key" [r $c ACL DRYRUN dr get b]
    assert_equal "This user has no permissions to run the 'set' command" [r $c ACL DRYRUN dr set a 1]
    assert_error "ERR User 'nobody' not found" {r $c ACL DRYRUN nobody get a}
    assert_error "ERR Command 'nocmd' not found" {r $c ACL DRYRUN dr nocmd}
    assert_equal 21 [llength [r $c ACL CAT]]
    assert {"get" in [r $c ACL CAT read]}
    assert {"set" ni [r $c ACL CAT read]}
    assert_error "ERR Unknown category 'x'" {r $c ACL CAT x}
    assert_equal 64 [string length [r $c ACL GENPASS]]
    assert_equal 2 [string length [r $c ACL GENPASS 5]]
    assert_equal {} [r $c ACL GETUSER nobody]
    set g [r $c ACL GETUSER dr]
    assert_equal {flags passwords commands keys channels selectors} [dict keys $g]
    assert_equal {-@all +get} [dict get $g commands]
    assert_equal {~a*} [dict get $g keys]
    assert_error "ERR The 'default' user cannot be removed" {r $c ACL DELUSER default}
    assert_equal 1 [r $c ACL DELUSER dr nobody]
}

test "deleting a user disconnects its clients; revoking a channel disconnects its subscribers" {
    r $c ACL SETUSER gone on nopass +@all ~* &*
    set x [as_user $srv gone x]
    set y [as_user $srv gone x]
    r $c ACL SETUSER sub on nopass +@all ~* resetchannels &a &b
    set s [as_user $srv sub x]
    set s2 [as_user $srv sub x]
    r $s SUBSCRIBE a
    r $s2 SUBSCRIBE b
    assert_equal {user=gone user=gone} [lmap t [lsearch -all -inline [split [r $c CLIENT LIST] \n] *user=gone*] {lindex $t end-2}]
    r $c ACL DELUSER gone
    assert {[connection_closed $x]}
    assert {[connection_closed $y]}
    r $c ACL SETUSER sub resetchannels &b
    assert {[connection_closed $s]}
    # the subscriber whose channel is still allowed stays
    assert_equal 1 [r $c PUBLISH b hi]
    assert_error "ERR No such user 'gone'" {r $c CLIENT KILL USER gone}
    assert_equal 1 [r $c CLIENT KILL USER sub]
    r $c ACL DELUSER sub
}

test "requirepass is the default user's password; AUTH, HELLO AUTH, RESET" {
    set x [client $srv]
    assert_error "ERR AUTH <password> called without any password configured*" {r $x AUTH pw}
    r $c CONFIG SET requirepass secret
    set h [exec sh -c {printf secret | sha256sum | cut -d' ' -f1}]
    assert_equal "user default on #$h ~* &* +@all" [lsearch -inline [r $c ACL LIST] "user default *"]
    set y [client $srv]
    assert_error "NOAUTH*" {r $y GET k}
    assert_error "WRONGPASS*" {r $y AUTH nope}
    assert_equal OK [r $y AUTH secret]
    assert_equal OK [r $y AUTH default secret]
    r $c ACL SETUSER hello on >hp +@all ~*
    set z [client $srv]
    assert_match "*proto 3*" [r $z HELLO 3 AUTH hello hp]
    assert_equal hello [r $z ACL WHOAMI]
    r $z RESET
    assert_error "NOAUTH*" {r $z GET k}
    r $c CONFIG SET requirepass ""
    assert_equal {user default on nopass ~* &* +@all} [lsearch -inline [r $c ACL LIST] "user default *"]
    assert_equal default [r $z ACL WHOAMI]
    r $c ACL DELUSER hello
}

test "passwords never reach SLOWLOG: AUTH, HELLO AUTH, ACL SETUSER, CONFIG SET requirepass" {
    r $c ACL SETUSER sl on >slpw ~* +@all
    r $c CONFIG SET slowlog-log-slower-than 0
    r $c SLOWLOG RESET
    set x [client $srv]
    r $x AUTH sl slpw
    catch {r $x AUTH sl wrong}
    r $x HELLO 2 AUTH sl slpw SETNAME n
    r $c ACL SETUSER sl >other
    r $c CONFIG SET requirepass rp maxmemory 0
    r $c CONFIG SET requirepass ""
    r $c CONFIG SET slowlog-log-slower-than 10000
    set logged [lmap e [r $c SLOWLOG GET 20] {lindex $e 3}]
    # (the last CONFIG SET is not logged: it ran under the new threshold)
    assert_equal {{CONFIG SET requirepass (redacted)} {CONFIG SET requirepass (redacted) maxmemory 0} {ACL SETUSER (redacted) (redacted)} {HELLO 2 AUTH (redacted) (redacted) SETNAME n} {AUTH (redacted) (redacted)} {AUTH (redacted) (redacted)} {SLOWLOG RESET}} \
        $logged
    r $c ACL DELUSER sl
}

test "ACL SAVE and ACL LOAD round-trip through the aclfile" {
    set dir [dict get $srv dir]
    set f [file join $dir users.acl]
    set fh [open $f w]
    puts $fh "user default on nopass ~* &* +@all"
    close $fh
    set s2 [start_server -config [list aclfile $f]]
    set a [client $s2]
    r $a ACL SETUSER alice on >pw ~a* &ch -@all +@read -get {(+set ~b*)}
    r $a ACL SETUSER bob off
    set before [r $a ACL LIST]
    assert_equal OK [r $a ACL SAVE]
    r $a ACL SETUSER carol on
    set x [as_user $s2 alice pw]
    assert_equal OK [r $a ACL LOAD]
    assert_equal $before [r $a ACL LIST]
    # every client of a user replaced by LOAD is disconnected, as in Redis
    assert {[connection_closed $x]}
    # a bad file changes nothing and says where it is wrong
    set fh [open $f a]
    puts $fh "user dave on +nosuch"
    puts $fh "bogus line"
    close $fh
    assert_error "ERR $f:4: Error in applying operation '+nosuch': Unknown command or category name in ACL. $f:5 should start with user keyword followed by the username. WARNING: ACL errors detected*" {r $a ACL LOAD}
    assert_equal $before [r $a ACL LIST]
    # and restarting reads the file
    set fh [open $f w]
    puts $fh [join $before \n]
    close $fh
    set s2 [restart_server $s2]
    set a [client $s2]
    assert_equal $before [r $a ACL LIST]
    stop_server $s2
    assert_error "ERR This Redis instance is not configured to use an ACL file*" {r $c ACL LOAD}
}

test "user directives in the configuration file, and CONFIG REWRITE keeps them" {
    set s2 [start_server -conftext "user default on >dpw ~* &* +@all\nuser app on >apw ~app:* +@read\n"]
    set a [client $s2]
    assert_error "NOAUTH*" {r $a PING}
    assert_equal OK [r $a AUTH dpw]
    set apw [exec sh -c {printf apw | sha256sum | cut -d' ' -f1}]
    assert_equal "user app on #$apw ~app:* resetchannels -@all +@read" [lindex [r $a ACL LIST] 0]
    r $a ACL SETUSER app +set
    assert_equal OK [r $a CONFIG REWRITE]
    set s2 [restart_server $s2]
    set a [client $s2]
    assert_equal OK [r $a AUTH dpw]
    assert_match "*+@read +set" [lindex [r $a ACL LIST] 0]
    stop_server $s2
    set conf [file join $::cairn(tmp) acl-bad.conf]
    set fh [open $conf w]
    puts $fh "user x on +nosuch"
    close $fh
    assert {[catch {exec -ignorestderr $::cairn(server) $conf --port 0 2>@1} out]}
    assert_match "*Error in user declaration '+nosuch': Unknown command or category name in ACL*" $out
    # an aclfile with errors, or together with user lines, stops start-up too
    set acl [file join $::cairn(tmp) acl-bad.acl]
    set fh [open $acl w]
    puts $fh "user x on +nosuch"
    close $fh
    assert {[catch {exec -ignorestderr $::cairn(server) --port 0 --aclfile $acl 2>@1} out]}
    assert_match "*$acl:1: Error in applying operation '+nosuch'*" $out
    set fh [open $conf w]
    puts $fh "user x on"
    puts $fh "aclfile $acl"
    close $fh
    assert {[catch {exec -ignorestderr $::cairn(server) $conf --port 0 2>@1} out]}
    assert_match "*users defined in redis.conf and at the same setting an ACL file path is invalid*" $out
}

test "a replica authenticates with masteruser/masterauth as an ACL user" {
    set p [start_server -config {repl-diskless-sync-delay 0}]
    set pc [client $p]
    r $pc ACL SETUSER repl on >rpw +psync +replconf +ping
    r $pc ACL SETUSER admin on >x +@all ~*
    r $pc ACL SETUSER default off
    set rep [start_server -config [list masteruser repl masterauth rpw repl-diskless-sync-delay 0]]
    set rc [client $rep]
    r $rc REPLICAOF 127.0.0.1 [dict get $p port]
    set adm [as_user $p admin x]
    r $adm SET rk rv
    set ok 0
    for {set i 0} {$i < 100} {incr i} {
        if {[r $rc GET rk] eq "rv"} { set ok 1; break }
        after 100
    }
    assert $ok "the replica got the write"
    # masterauth alone authenticates as "default"
    r $adm ACL SETUSER default on >dpw
    set rep2 [start_server -config [list masterauth dpw repl-diskless-sync-delay 0]]
    set rc2 [client $rep2]
    r $rc2 REPLICAOF 127.0.0.1 [dict get $p port]
    set ok 0
    for {set i 0} {$i < 100} {incr i} {
        if {[r $rc2 GET rk] eq "rv"} { set ok 1; break }
        after 100
    }
    assert $ok "the masterauth replica got the data"
    # the primary's stream is applied even if the replica's own default user may not write
    r $rc2 ACL SETUSER default -@write
    r $adm SET rk2 v2
    set ok 0
    for {set i 0} {$i < 100} {incr i} {
        if {[r $rc2 GET rk2] eq "v2"} { set ok 1; break }
        after 100
    }
    assert $ok "the replica applied a write its default user may not make"
    stop_server $rep2
    stop_server $rep
    stop_server $p
}

test "masterauth may hold a NUL byte" {
    set p [start_server -config {repl-diskless-sync-delay 0}]
    set pc [client $p]
    r $pc CONFIG SET requirepass "ab\x00cd"
    set rep [start_server -config {repl-diskless-sync-delay 0}]
    set rc [client $rep]
    # cut at the NUL, the password is wrong: the link stays down
    r $rc CONFIG SET masterauth "ab"
    r $rc REPLICAOF 127.0.0.1 [dict get $p port]
    after 1500
    assert_match "*master_link_status:down*" [r $rc INFO replication]
    r $rc CONFIG SET masterauth "ab\x00cd"
    assert_equal "ab\x00cd" [lindex [r $rc CONFIG GET masterauth] 1]
    set ok 0
    for {set i 0} {$i < 100} {incr i} {
        if {[string match "*master_link_status:up*" [r $rc INFO replication]]} { set ok 1; break }
        after 100
    }
    assert $ok "the replica authenticated with the binary password"
    stop_server $rep
    stop_server $p
}

if {$::cairn(reference) ne ""} {
    test "ACL command replies match the reference server" {
        set script {
            {ACL SETUSER alice}
            {ACL LIST}
            {ACL SETUSER bob on >p1 ~cache:* %R~r:* &ch* +@read +set {(~x* +get)}}
            {ACL GETUSER alice}
            {ACL SETUSER x +get|x}
            {ACL SETUSER x +select|0 -select|1}
            {ACL GETUSER x}
            {ACL SETUSER x <nopw}
            {ACL SETUSER x allkeys ~foo}
            {ACL SETUSER x %X~foo}
            {ACL SETUSER x %RW}
            {ACL SETUSER x %~x}
            {ACL SETUSER x +debug|}
            {ACL SETUSER x (~foo}
            {ACL DRYRUN bob get foo}
            {ACL DRYRUN bob get cache:1}
            {ACL DRYRUN bob publish x y}
            {ACL DRYRUN bob get}
            {ACL SETUSER r2 on nopass +get ~a %R~a %W~b %RW~c &x &x}
            {ACL LIST}
            {ACL LOG x}
            {ACL LOG -1}
            {ACL LOAD}
            {ACL SETUSER {a b}}
            {ACL HELP}
            {ACL CAT}
            {ACL CAT a b}
            {ACL GENPASS 4097}
            {ACL NOSUCH}
            {ACL WHOAMI x}
            {ACL SETUSER t1 reset +@read -get}
            {ACL GETUSER t1}
            {ACL SETUSER t1 reset +@read +@write -@read}
            {ACL GETUSER t1}
            {ACL SETUSER t1 reset +client +client|id -client|kill}
            {ACL GETUSER t1}
            {ACL SETUSER t1 reset +select|0 +select|1}
            {ACL GETUSER t1}
            {ACL SETUSER t1 reset +@all -get +@read}
            {ACL GETUSER t1}
            {ACL SETUSER t1 reset +@hash +@set +@list -lpush}
            {ACL GETUSER t1}
            {ACL USERS}
            {AUTH foo}
            {AUTH default x}
            {AUTH bob p1}
            {GET cache:1}
            {GET r:1}
            {SET r:1 v}
            {PUBLISH x 1}
            {MGET cache:1 other}
        }
        set ref [start_server -binary $::cairn(reference)]
        set rr [client $ref]
        set s3 [start_server]
        set cc [client $s3]
        foreach cmd $script {
            set a [catch {r $rr {*}$cmd} ra]
            set b [catch {r $cc {*}$cmd} rb]
            assert_equal [list $a $ra] [list $b $rb] $cmd
        }
        # every category lists the same commands (those cairn has)
        r $rr AUTH default ""
        set rr [client $ref]
        set cc [client $s3]
        set have [r $cc COMMAND LIST]
        foreach cat [r $rr ACL CAT] {
            set theirs [lsort [lmap n [r $rr ACL CAT $cat] {
                expr {[lindex [split $n |] 0] in $have ? $n : [continue]}
            }]]
            set ours [lsort [lsearch -all -inline -not [r $cc ACL CAT $cat] waitaof]]
            assert_equal $theirs $ours "ACL CAT $cat"
        }
        stop_server $ref
        stop_server $s3
    }
}

finish
