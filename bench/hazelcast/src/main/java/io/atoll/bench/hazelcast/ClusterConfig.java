package io.atoll.bench.hazelcast;

import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.NetworkConfig;
import io.atoll.bench.hazelcast.model.Model;

/** Member and client configuration: loopback only, TCP-IP join, Jet and SQL on, the model's serializers. */
final class ClusterConfig {
    private ClusterConfig() {
    }

    static Config member(int index, int members, int basePort, String cluster) {
        Config c = new Config();
        c.setClusterName(cluster);
        c.setInstanceName("bench-member-" + index);
        c.setProperty("hazelcast.phone.home.enabled", "false");
        c.setProperty("hazelcast.socket.bind.any", "false");
        c.setProperty("hazelcast.local.localAddress", "127.0.0.1");
        c.setProperty("hazelcast.logging.type", "jdk");
        NetworkConfig net = c.getNetworkConfig();
        net.setPort(basePort + index).setPortAutoIncrement(false);
        net.getInterfaces().setEnabled(true).addInterface("127.0.0.1");
        net.getRestApiConfig().setEnabled(false);
        JoinConfig join = net.getJoin();
        join.getMulticastConfig().setEnabled(false);
        join.getAutoDetectionConfig().setEnabled(false);
        join.getTcpIpConfig().setEnabled(true);
        for (int i = 0; i < members; i++) {
            join.getTcpIpConfig().addMember("127.0.0.1:" + (basePort + i));
        }
        c.getJetConfig().setEnabled(true);
        Model.register(c.getSerializationConfig());
        return c;
    }

    static ClientConfig client(int members, int basePort, String cluster) {
        ClientConfig c = new ClientConfig();
        c.setClusterName(cluster);
        c.setInstanceName("bench-client");
        c.setProperty("hazelcast.logging.type", "jdk");
        c.getNetworkConfig().getAutoDetectionConfig().setEnabled(false);
        c.getNetworkConfig().setSmartRouting(true);
        for (int i = 0; i < members; i++) {
            c.getNetworkConfig().addAddress("127.0.0.1:" + (basePort + i));
        }
        Model.register(c.getSerializationConfig());
        return c;
    }
}
