#!/bin/bash
# Builds the Java API (build.sh), writes the test models with the Python
# writer (src/test/python/write_test_models.py) and runs the JUnit 4 tests
# on the host JVM with -Xcheck:jni; any JNI warning fails the run.
#
#   lite/java/test.sh
#
# Needs a JDK (javac), JUnit 4 (Debian junit4: /usr/share/java/junit4.jar
# and hamcrest), python3 with numpy + flatbuffers, and flatc.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
OUT=${OUT:-build/java}
PYTHON=${PYTHON:-python3}
JUNIT=${JUNIT:-/usr/share/java/junit4.jar:/usr/share/java/hamcrest-core.jar}

OUT=$OUT lite/java/build.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$PYTHON" lite/java/src/test/python/write_test_models.py "$tmp/models"
javac -Xlint:all -Werror -cp "$OUT/tensorweave-lite.jar:$JUNIT" -d "$tmp/classes" \
  $(find lite/java/src/test/java -name '*.java')
tests=$(cd lite/java/src/test/java && find . -name '*Test.java' | sed 's|^\./||; s|\.java$||; s|/|.|g')
rc=0
java -Xcheck:jni -Djava.library.path="$OUT" -Dtwl.test.models="$tmp/models" \
  -cp "$tmp/classes:$OUT/tensorweave-lite.jar:$JUNIT" org.junit.runner.JUnitCore $tests \
  2>&1 | tee "$tmp/log" || rc=$?
if grep -q "WARNING in native method" "$tmp/log"; then
  echo "FAILED: -Xcheck:jni reported warnings"
  exit 1
fi
exit $rc
