# Helpers shared by every layer's CMakeLists.

# gantry_library(NAME DEPS...): one library per folder under src/, made of every *.cc in the
# folder that is not a test; every *_test.cc beside it becomes part of the NAME_test executable,
# registered with ctest as one test, unit.NAME, that runs every case in one process (a process
# per case cost CI minutes under the sanitizers; a failure still names its case: gtest prints
# the cases that failed). One case by hand: build/tests/NAME_test --gtest_filter='Suite.Case'.
# New files are picked up on the next build (CONFIGURE_DEPENDS).
function(gantry_library name)
  file(GLOB srcs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cc)
  file(GLOB tests CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*_test.cc)
  list(REMOVE_ITEM srcs ${tests})
  if(srcs)
    add_library(gantry_${name} STATIC ${srcs})
    target_include_directories(gantry_${name} PUBLIC ${PROJECT_SOURCE_DIR}/src)
    target_link_libraries(gantry_${name} PUBLIC ${ARGN})
  else()
    # Headers only (or not written yet).
    add_library(gantry_${name} INTERFACE)
    target_include_directories(gantry_${name} INTERFACE ${PROJECT_SOURCE_DIR}/src)
    target_link_libraries(gantry_${name} INTERFACE ${ARGN})
  endif()
  if(tests)
    add_executable(${name}_test ${tests})
    set_target_properties(${name}_test PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
    target_include_directories(${name}_test PRIVATE ${PROJECT_SOURCE_DIR})
    target_link_libraries(${name}_test PRIVATE gantry_${name} GTest::gmock GTest::gtest_main)
    add_test(NAME unit.${name} COMMAND ${name}_test --gtest_brief=1)
    # GANTRY_TEST_PROPERTIES (set by the caller): more ctest properties for the test.
    set_tests_properties(unit.${name} PROPERTIES LABELS unit TIMEOUT 900 ${GANTRY_TEST_PROPERTIES})
  endif()
endfunction()
