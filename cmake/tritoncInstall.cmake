# `cmake --install` (component "dev"): the headers, the static libraries,
# the tritonc tool and a CMake package, so that another project can write
#
#   find_package(tritonc REQUIRED)
#   target_link_libraries(app PRIVATE tritonc::driver)
#
# Each library is exported as tritonc::<name> (tritonc_driver -> tritonc::driver);
# the same names exist as aliases in this build for add_subdirectory users.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(TRITONC_EXPORTED_LIBRARIES
    support ir lang analysis ptx transform codegen interp runtime driver)
foreach(name IN LISTS TRITONC_EXPORTED_LIBRARIES)
  set_target_properties(tritonc_${name} PROPERTIES EXPORT_NAME ${name})
  add_library(tritonc::${name} ALIAS tritonc_${name})
  list(APPEND TRITONC_EXPORTED_TARGETS tritonc_${name})
endforeach()
set_target_properties(tritonc_options PROPERTIES EXPORT_NAME options)

install(TARGETS ${TRITONC_EXPORTED_TARGETS} tritonc_options
        EXPORT tritoncTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS tritonc RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT dev)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/tritonc
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev
        FILES_MATCHING PATTERN "*.h" PATTERN "*.def")
install(DIRECTORY ${PROJECT_SOURCE_DIR}/kernels/
        DESTINATION ${CMAKE_INSTALL_DATADIR}/tritonc/kernels COMPONENT dev)

set(TRITONC_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/tritonc)
install(EXPORT tritoncTargets NAMESPACE tritonc:: DESTINATION ${TRITONC_CMAKE_DIR}
        COMPONENT dev)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/tritoncConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/tritoncConfig.cmake
                              INSTALL_DESTINATION ${TRITONC_CMAKE_DIR}
                              PATH_VARS CMAKE_INSTALL_DATADIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/tritoncConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/tritoncConfig.cmake
              ${PROJECT_BINARY_DIR}/tritoncConfigVersion.cmake
        DESTINATION ${TRITONC_CMAKE_DIR} COMPONENT dev)
